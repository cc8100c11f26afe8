// Sluice and n8n side by side in one run: the same 40-node chain over the same 20-row CSV, triggered one run at a
// time over HTTP, timed from just before the trigger to the moment the client knows the run is complete.
//   Sluice: `bench/http-chain-40.mjs`'s measurement (lib/chain-40.mjs) on a fresh `sluice serve` with SQLite, as
//           `npm start` runs it: POST /api/pipelines/{id}/run, then `run.completed` on the WebSocket (sent once the
//           run's node runs, logs, previews and profiles are committed).
//   n8n:    a fresh `n8n start` (its default SQLite database, default settings) with one active workflow: a Webhook
//           trigger answering when the last node finishes ("Respond: When Last Node Finishes"), "Read/Write Files
//           from Disk" and "Extract from File" (CSV) in place of `source_file`, then 40 nodes each doing a transform's
//           work on every row: the computed column, the filter, the cast, the column dropped. --variant code (default)
//           makes them Code nodes (JavaScript, run once for all items), --variant filter n8n's Filter node (the same
//           condition as an expression; no column is added or cast), --variant noop its No Operation node (no work:
//           n8n's cost per node, not a comparison of equal work).
// Each repetition starts both servers afresh, Sluice first; 5 warm-up runs each are not measured. Prints the median
// of each repetition, min/median/max over the repetitions, and n8n/Sluice.
//
// n8n is not a dependency of this repository: install it outside the checkout, then point --n8n at it. Its version 1.x
// runs on Node 20, with two of its dependencies replaced: `xlsx` is fetched from a CDN that some networks (this
// machine's) do not reach, so the registry's `xlsx` instead, and `isolated-vm` 6 builds only against Node 22's V8:
//   mkdir /tmp/n8n && cd /tmp/n8n
//   echo '{"private":true,"overrides":{"xlsx":"0.18.5","isolated-vm":"5.0.4"}}' > package.json
//   npm install n8n@1.123.81
//   cd - && npm run build && node bench/peer-n8n-chain-40.mjs --n8n /tmp/n8n
// Options: --n8n DIR (required; or $SLUICE_BENCH_N8N) --variant code|filter|noop --runs 30 --reps 3 --warmup 5
// n8n is started with its telemetry, version checks, templates and personalization turned off, listening on
// 127.0.0.1 only, with file access limited to the run's own directory.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { N, measureChain } from "./lib/chain-40.mjs";
import {
  freePort,
  httpClient,
  spawnNode,
  loadavg,
  median,
  mmm,
  parseArgs,
  tmpDir,
  writeOrdersCsv,
} from "./lib/serve.mjs";

const opts = parseArgs(process.argv.slice(2), {
  n8n: process.env.SLUICE_BENCH_N8N ?? "",
  variant: "code",
  runs: 30,
  reps: 3,
  warmup: 5,
});
if (!opts.n8n) {
  // bench/run-all.mjs runs every script: this one says why it measured nothing
  console.log(
    "skipped: needs --n8n DIR (or $SLUICE_BENCH_N8N), a directory where n8n is installed (see this file's header)",
  );
  process.exit(0);
}
const N8N_BIN = path.join(path.resolve(opts.n8n), "node_modules", "n8n", "bin", "n8n");
if (!fs.existsSync(N8N_BIN)) throw new Error(`no n8n at ${N8N_BIN}: install it there first (see the header)`);
if (!["code", "filter", "noop"].includes(opts.variant))
  throw new Error(`--variant code|filter|noop, got ${opts.variant}`);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One node doing transform `i`'s work on every row (chainRules in lib/chain-40.mjs). */
function n8nStep(i) {
  if (opts.variant === "code")
    return {
      type: "n8n-nodes-base.code",
      typeVersion: 2,
      parameters: {
        jsCode:
          `return $input.all()` +
          `.map((item) => ({ json: { ...item.json, step: Number(item.json.amount) * 1.01 + ${i} } }))` +
          `.filter((item) => item.json.step > 0 && item.json.status === "ok")` +
          `.map((item) => { const { step, ...row } = { ...item.json, step: Math.trunc(item.json.step) }; return { json: row }; });`,
      },
    };
  if (opts.variant === "noop") return { type: "n8n-nodes-base.noOp", typeVersion: 1, parameters: {} };
  return {
    type: "n8n-nodes-base.filter",
    typeVersion: 2,
    parameters: {
      conditions: {
        options: { caseSensitive: true, leftValue: "", typeValidation: "loose" },
        conditions: [
          {
            id: `step-${i}`,
            leftValue: `={{ Number($json.amount) * 1.01 + ${i} }}`,
            rightValue: 0,
            operator: { type: "number", operation: "gt" },
          },
          {
            id: `status-${i}`,
            leftValue: "={{ $json.status }}",
            rightValue: "ok",
            operator: { type: "string", operation: "equals" },
          },
        ],
        combinator: "and",
      },
      options: {},
    },
  };
}

function n8nWorkflow(csvPath) {
  const nodes = [
    {
      name: "Webhook",
      type: "n8n-nodes-base.webhook",
      typeVersion: 2,
      webhookId: "5b0d6a4e-7f5c-4a4e-9d1e-0c4b2f6a8e11",
      parameters: {
        httpMethod: "POST",
        path: "chain",
        responseMode: "lastNode",
        responseData: "allEntries",
        options: {},
      },
    },
    {
      name: "Read",
      type: "n8n-nodes-base.readWriteFile",
      typeVersion: 1,
      parameters: { operation: "read", fileSelector: csvPath, options: {} },
    },
    {
      name: "Extract",
      type: "n8n-nodes-base.extractFromFile",
      typeVersion: 1,
      parameters: { operation: "csv", options: {} },
    },
    ...Array.from({ length: N }, (_, i) => ({ name: `t${i}`, ...n8nStep(i) })),
  ].map((node, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    position: [i * 200, 0],
    ...node,
  }));
  const connections = Object.fromEntries(
    nodes.slice(0, -1).map((node, i) => [node.name, { main: [[{ node: nodes[i + 1].name, type: "main", index: 0 }]] }]),
  );
  return {
    id: "SluiceBenchChain",
    name: `bench chain of ${N} ${opts.variant} nodes`,
    active: false,
    nodes,
    connections,
    settings: {},
  };
}

/** n8n's CLI in `dir` (its user folder), with the environment of the server. */
function n8nEnv(dir, port) {
  return {
    ...process.env,
    DB_TYPE: "sqlite",
    N8N_USER_FOLDER: dir,
    N8N_PORT: String(port),
    N8N_LISTEN_ADDRESS: "127.0.0.1",
    N8N_HOST: "127.0.0.1",
    N8N_DIAGNOSTICS_ENABLED: "false",
    N8N_VERSION_NOTIFICATIONS_ENABLED: "false",
    N8N_TEMPLATES_ENABLED: "false",
    N8N_PERSONALIZATION_ENABLED: "false",
    N8N_RESTRICT_FILE_ACCESS_TO: dir,
    N8N_LOG_LEVEL: "warn",
  };
}

function n8nCli(dir, port, args) {
  const r = spawnSync(process.execPath, [N8N_BIN, ...args], { cwd: dir, env: n8nEnv(dir, port), encoding: "utf8" });
  if (r.status !== 0)
    throw new Error(`n8n ${args.join(" ")} exited ${r.status}: ${(r.stderr || r.stdout).slice(-600)}`);
}

async function measureN8n(rep) {
  const dir = tmpDir("sluice-bench-peer-n8n-");
  const logPath = path.join(dir, "n8n.log");
  let n8n;
  let http;
  try {
    const csv = path.join(dir, "files", writeOrdersCsv(dir));
    const port = await freePort();
    fs.writeFileSync(path.join(dir, "workflow.json"), JSON.stringify(n8nWorkflow(csv)));
    n8nCli(dir, port, ["import:workflow", `--input=${path.join(dir, "workflow.json")}`]);
    n8nCli(dir, port, ["update:workflow", "--id=SluiceBenchChain", "--active=true"]);
    const load0 = loadavg();
    n8n = spawnNode([N8N_BIN, "start"], { cwd: dir, env: n8nEnv(dir, port), logPath });
    http = httpClient(`http://127.0.0.1:${port}`, 1);
    // ready once the workflow's webhook has answered 5 times in a row over a second: n8n registers it after start-up,
    // and was once seen to answer 404 for a while after its first answers
    const deadline = Date.now() + 120_000;
    for (let answered = 0; ;) {
      const ok = await http.call("POST", "/webhook/chain", {}).then(
        () => true,
        () => false,
      );
      answered = ok ? answered + 1 : 0;
      if (answered === 5) break;
      if (n8n.gone || Date.now() > deadline)
        throw new Error(`n8n did not serve the webhook: ${fs.readFileSync(logPath, "utf8").slice(-1500)}`);
      await sleep(250);
    }
    const done = [];
    for (let i = 0; i < opts.warmup + opts.runs; i++) {
      await sleep(20); // as Sluice's runs: each trigger after a 20 ms pause
      const t0 = performance.now();
      const res = await http.call("POST", "/webhook/chain", {});
      const t = performance.now() - t0;
      const rows = res.json();
      // the CSV's 20 rows, of which 16 are "ok" (every fifth is refunded); No Operation keeps them all
      const expected = opts.variant === "noop" ? 20 : 16;
      if (!Array.isArray(rows) || rows.length !== expected || (expected === 16 && rows.some((r) => r.status !== "ok")))
        throw new Error(`n8n answered ${res.text.slice(0, 300)}`);
      if (i >= opts.warmup) done.push(t);
    }
    return { rep, median: median(done), all: done, load0, load1: loadavg() };
  } finally {
    await http?.close().catch(() => undefined);
    await n8n?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const sluice = [];
const n8n = [];
for (let rep = 1; rep <= opts.reps; rep++) {
  sluice.push(await measureChain("sqlite", rep, undefined, { ...opts, shape: "file", auth: "none" }));
  n8n.push(await measureN8n(rep));
}

const n8nVersion = JSON.parse(fs.readFileSync(path.join(path.dirname(N8N_BIN), "..", "package.json"), "utf8")).version;
console.log(
  `\n40-node chain over a 20-row CSV, ${opts.runs} runs one at a time after ${opts.warmup} warm-up runs, ${opts.reps} fresh servers each; ` +
    `trigger → complete as the client sees it (median per repetition)`,
);
for (let i = 0; i < opts.reps; i++)
  console.log(
    `  rep ${i + 1}: sluice ${sluice[i].medians.wsDone.toFixed(2)} ms (loadavg ${sluice[i].load0} → ${sluice[i].load1}), ` +
      `n8n ${n8n[i].median.toFixed(2)} ms (loadavg ${n8n[i].load0} → ${n8n[i].load1})`,
  );
const s = sluice.map((r) => r.medians.wsDone);
const p = n8n.map((r) => r.median);
console.log(`  Sluice (POST → run.completed on /ws)          min/median/max ${mmm(s, 2, " ms")}`);
console.log(`  n8n ${n8nVersion}, ${opts.variant} nodes (POST → webhook answer)  min/median/max ${mmm(p, 2, " ms")}`);
console.log(`  n8n/Sluice (medians of the medians): ×${(median(p) / median(s)).toFixed(2)}`);
console.log(`  reproduce: node bench/peer-n8n-chain-40.mjs ${process.argv.slice(2).join(" ") || `--n8n ${opts.n8n}`}`);
