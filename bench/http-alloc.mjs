// Memory allocated per run, as a user drives the server: a real `sluice serve` (spawned, built packages — run
// `npm run build` first) running one pipeline (--shape): `file`, the 40-node chain of `http-chain-40.mjs`
// (`source_file` + 40 real `transform` nodes); `transform`, its 40 transforms alone; or `single`, the one `transform`
// of `http-throughput.mjs`. Runs are triggered one at a time over HTTP and followed on the WebSocket. The server runs
// with bench/lib/alloc-sampler.mjs loaded (V8's sampling heap profiler, counting objects already freed), which samples
// from the first measured run to the last. Reported: bytes allocated per run (a sampled estimate, one sample per 4 KiB
// on average), and the functions that allocated most, for this checkout's last repetition.
//
// Why: what a run allocates is what the garbage collector must sweep, on the server's thread and on V8's helper
// threads, and unlike the time figures it hardly depends on what else the machine does meanwhile, so a change of a
// few per cent in it can be seen in one run of this script where the latency benches cannot (docs/performance.md).
// Each repetition uses a fresh server and database (SQLite file in a temp dir; a throw-away PostgreSQL database on
// $SLUICE_TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres, dropped afterwards).
// Options: --db sqlite|postgres|both (sqlite) --shape file|transform|single (file) --runs 100 --warmup 40 --reps 3
// --top 12 --ws-clients 1 (WebSocket clients following the pipeline's events, as several open UI pages would)
// --baseline DIR (another built checkout: each repetition runs its server too, and the report adds this/baseline)
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chainSpec, withPipelineServer } from "./lib/chain-40.mjs";
import {
  ORDER_RULES,
  eachMode,
  eventCollector,
  loadavg,
  median,
  mmm,
  parseArgs,
  tmpDir,
  startedAs,
  reproduceCommand,
} from "./lib/serve.mjs";

const SAMPLER = path.join(path.dirname(fileURLToPath(import.meta.url)), "lib", "alloc-sampler.mjs");

const opts = parseArgs(process.argv.slice(2), {
  db: "sqlite",
  shape: "file",
  runs: 100,
  warmup: 40,
  reps: 3,
  top: 12,
  "ws-clients": 1,
  baseline: "",
});

/** The pipeline of --shape: the chain (`file`, `transform`), or `single`, the throughput benchmark's one transform. */
const specOf = (csv, shape) =>
  shape === "single"
    ? {
        name: "bench single transform",
        nodes: [{ id: "clean", type: "transform", config: { rules: ORDER_RULES } }],
        edges: [],
      }
    : chainSpec(csv, shape);

/** Self bytes of every sampled allocation site (function, file:line) of a sampling heap profile, and their sum. */
function allocationSites(profile) {
  const sites = new Map();
  let total = 0;
  const walk = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.replace(/^file:\/\//, "").replace(/^.*node_modules\//, "");
    const site = `${functionName || "(anonymous)"} ${path.isAbsolute(file) ? path.relative(process.cwd(), file) : file}:${lineNumber + 1}`;
    sites.set(site, (sites.get(site) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  return { total, sites };
}

/** Waits until `file` exists and is not empty (the sampler writes each file in one call). */
async function waitForFile(file, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!fs.existsSync(file) || fs.statSync(file).size === 0) {
    if (Date.now() > deadline) throw new Error(`the allocation sampler wrote no ${path.basename(file)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function once(mode, rep, bin) {
  const load0 = loadavg();
  const out = path.join(tmpDir("sluice-bench-http-alloc-"), "alloc.heapprofile");
  const serverOptions = { mode, bin, nodeArgs: ["--import", SAMPLER], env: { SLUICE_BENCH_ALLOC_OUT: out } };
  try {
    return await withPipelineServer(
      serverOptions,
      (csv) => specOf(csv, opts.shape),
      async (setup) => {
        const { server, http, events, pipeline, spec } = setup;
        // the clients besides `events`: each gets every event too (the runs are followed on `events`)
        const others = [];
        for (let i = 1; i < Number(opts["ws-clients"]); i++)
          others.push(await eventCollector(server.url, pipeline.id, http.token));
        try {
          for (let i = 0; i < opts.warmup + opts.runs; i++) {
            if (i === opts.warmup) {
              process.kill(server.pid, "SIGUSR2");
              await waitForFile(`${out}.started`); // the sampler says it samples before the first measured run is sent
            }
            const res = await http.call("POST", `/api/pipelines/${pipeline.id}/run`, { params: {} });
            const { id } = res.json();
            const end = await events.waitForRun(id);
            if (end.type !== "run.completed") throw new Error(`run ${id} ended ${end.type}: ${end.error}`);
          }
        } finally {
          for (const other of others) other.close();
        }
        // the last run's batched writes and events are out once run.completed has been sent
        process.kill(server.pid, "SIGUSR2");
        await waitForFile(out);
        const profile = JSON.parse(fs.readFileSync(out, "utf8"));
        if (profile.error) throw new Error(`allocation sampling failed: ${profile.error}`);
        const { total, sites } = allocationSites(profile);
        return {
          rep,
          kibPerRun: total / opts.runs / 1024,
          sites,
          load0,
          load1: loadavg(),
          nodes: spec.nodes.length,
          command: server.command,
        };
      },
    );
  } finally {
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  }
}

function report(mode, results, label) {
  console.log(
    `\n${label}${mode}: ${opts.shape === "single" ? "one transform" : `chain of ${results[0].nodes} nodes`}, ${opts.runs} runs one at a time after ${opts.warmup} unmeasured, ${opts["ws-clients"]} WebSocket client(s), ${results.length} fresh servers`,
  );
  for (const r of results)
    console.log(`  rep ${r.rep}: ${r.kibPerRun.toFixed(0)} KiB allocated per run; loadavg ${r.load0} → ${r.load1}`);
  console.log(
    `  allocated per run (sampled)   min/median/max ${mmm(
      results.map((r) => r.kibPerRun),
      0,
      " KiB",
    )}`,
  );
  const last = results.at(-1);
  console.log(`  most allocated, rep ${last.rep} (KiB per run):`);
  for (const [site, bytes] of [...last.sites].sort((a, b) => b[1] - a[1]).slice(0, opts.top))
    console.log(`    ${(bytes / opts.runs / 1024).toFixed(1).padStart(7)}  ${site}`);
}

await eachMode(opts, {
  once,
  report,
  compare(mode, results, baseline) {
    const ratio = median(results.map((r) => r.kibPerRun)) / median(baseline.map((r) => r.kibPerRun));
    console.log(`  this/baseline (medians): allocated per run ×${ratio.toFixed(2)}`);
  },
  after(mode, results) {
    console.log(`  server started as: ${startedAs(results[0].command, mode)}`);
    console.log(`  reproduce: ${reproduceCommand(mode)}`);
  },
});
