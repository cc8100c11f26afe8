// Summarises V8 CPU profiles (`node --cpu-prof` → *.cpuprofile): self time and inclusive time by function (name +
// file:line) and by package (node_modules package, @sluice/* workspace, node: internals, or V8's pseudo-frames such
// as (garbage collector) and (idle)). Time comes from the profile's sample time deltas.
//   node bench/profile-summary.mjs <file.cpuprofile | dir> [--top 20]
// A directory means every .cpuprofile in it (summed). Not a benchmark: bench/run-all.mjs skips it.
import fs from "node:fs";
import path from "node:path";
import { answerHelp } from "./lib/help.mjs";

answerHelp();

const args = process.argv.slice(2);
const topIdx = args.indexOf("--top");
const TOP = topIdx >= 0 ? Number(args.splice(topIdx, 2)[1]) : 20;
if (args.length === 0) {
  console.log("usage: node bench/profile-summary.mjs <file.cpuprofile | dir> [--top 20]");
  process.exit(0);
}
const files = args.flatMap((a) =>
  fs.statSync(a).isDirectory()
    ? fs
        .readdirSync(a)
        .filter((f) => f.endsWith(".cpuprofile"))
        .map((f) => path.join(a, f))
    : [a],
);

function packageOf(url, name) {
  if (!url) return name.startsWith("(") ? name : "(native/V8 builtin)";
  if (url.startsWith("node:")) return "node:" + (url.slice(5).split("/")[0] === "internal" ? "internal" : url.slice(5));
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const parts = url.slice(nm + 13).split("/");
    return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const ws = /packages\/([^/]+)\//.exec(url);
  if (ws) return `@sluice/${ws[1]}`;
  return url.replace(/^file:\/\//, "");
}
const short = (url) =>
  url
    .replace(/^file:\/\//, "")
    .replace(/^.*node_modules\//, "")
    .replace(/^.*\/packages\//, "packages/");

const self = new Map();
const incl = new Map();
const pkgSelf = new Map();
const pkgIncl = new Map();
let total = 0;
const add = (m, k, v) => m.set(k, (m.get(k) ?? 0) + v);

for (const file of files) {
  const prof = JSON.parse(fs.readFileSync(file, "utf8"));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const fnKey = (n) => {
    const { functionName, url, lineNumber } = n.callFrame;
    const name = functionName || "(anonymous)";
    return url ? `${name}  ${short(url)}:${lineNumber + 1}` : name;
  };
  for (let i = 0; i < prof.samples.length; i++) {
    const dt = (prof.timeDeltas[i] ?? 0) / 1000; // µs → ms
    if (dt <= 0) continue;
    const leaf = byId.get(prof.samples[i]);
    total += dt;
    add(self, fnKey(leaf), dt);
    add(pkgSelf, packageOf(leaf.callFrame.url, leaf.callFrame.functionName), dt);
    const seenFn = new Set();
    const seenPkg = new Set();
    for (let id = leaf.id; id !== undefined; id = parent.get(id)) {
      const n = byId.get(id);
      if (n.callFrame.functionName === "(root)") break;
      const k = fnKey(n);
      if (!seenFn.has(k)) {
        seenFn.add(k);
        add(incl, k, dt);
      }
      const p = packageOf(n.callFrame.url, n.callFrame.functionName);
      if (!seenPkg.has(p)) {
        seenPkg.add(p);
        add(pkgIncl, p, dt);
      }
    }
  }
}

const busy = total - (self.get("(idle)") ?? 0);
const table = (title, m, n) => {
  console.log(`\n${title}`);
  const rows = [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  for (const [k, v] of rows)
    console.log(
      `  ${v.toFixed(0).padStart(8)} ms ${((100 * v) / total).toFixed(1).padStart(5)}% ${((100 * v) / busy).toFixed(1).padStart(5)}%busy  ${k}`,
    );
};
console.log(
  `${files.length} profile(s), ${total.toFixed(0)} ms sampled, ${busy.toFixed(0)} ms not idle (${((100 * busy) / total).toFixed(1)}%)`,
);
table(`top ${TOP} self time by function`, self, TOP);
table(`top ${TOP} inclusive time by function`, incl, TOP);
table("self time by package", pkgSelf, 40);
table("inclusive time by package", pkgIncl, 25);
