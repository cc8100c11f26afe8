// What saving a pipeline costs everyone else on a server holding many: a real `sluice serve` (spawned, built
// packages — run `npm run build` first) with --pipelines pipelines (1,000 by default) of about 19 KB each, all on a
// cron schedule, each but the first depending on the one before it; then --saves saves of one of them
// (`PUT /api/pipelines/{id}` of its description and `depends_on`), --gap ms apart (more than the scheduler leader's
// 1 s sync, which reloads the schedules after every change), while a second client asks `GET /health` every 20 ms.
// Reported per repetition: the save's answer (median), the longest and the 99th-percentile `GET /health` answer
// meanwhile, and the largest event-loop delay the server's /metrics saw (prom-client, 10 ms resolution).
// Options: --db sqlite|postgres|both (sqlite) --pipelines 1000 --saves 10 --gap 1300 --reps 3
// --baseline DIR (another built checkout: each repetition runs its server too, and the report adds this/baseline)
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import {
  HOLD_LABELS,
  createPgDatabase,
  eachMode,
  eventLoopDelay,
  healthProbe,
  holdValues,
  httpClient,
  loadavg,
  median,
  parseArgs,
  printRatios,
  printValues,
  reproduceCommand,
  startServer,
  startedAs,
  tmpDir,
} from "./lib/serve.mjs";

const opts = parseArgs(process.argv.slice(2), {
  db: "sqlite",
  pipelines: 1000,
  saves: 10,
  gap: 1300,
  reps: 3,
  baseline: "",
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A pipeline of about 19 KB: a source, 60 transforms of a few rules each and a sink, in a chain. */
function definition(i, dependsOn) {
  const transforms = Array.from({ length: 60 }, (_, n) => ({
    id: `t${n}`,
    type: "transform",
    name: `Step ${n} of pipeline ${i}`,
    config: {
      rules: [
        { type: "filter", expression: `amount > ${n} and status != "cancelled"` },
        { type: "computed", column: `c${n}`, expression: `amount * ${n + 1} + fee` },
        { type: "rename", from: `c${n}`, to: `column_${n}` },
      ],
    },
    position: { x: 200 * n, y: 100 },
  }));
  const ids = ["read", ...transforms.map((t) => t.id), "write"];
  return {
    name: `pipeline ${String(i).padStart(4, "0")}`,
    description: `one of ${opts.pipelines}`,
    schedule: "0 3 * * *",
    depends_on: dependsOn ? [dependsOn] : [],
    nodes: [
      { id: "read", type: "source_file", config: { path: `in-${i}.csv`, format: "csv" } },
      ...transforms,
      { id: "write", type: "sink_file", config: { path: `out-${i}.csv`, format: "csv" } },
    ],
    edges: ids.slice(1).map((to, n) => ({ from: ids[n], to })),
  };
}

async function once(mode, rep, bin) {
  const dir = tmpDir("sluice-bench-pipeline-saves-");
  const pgdb = mode === "postgres" ? await createPgDatabase() : null;
  const db = pgdb ? pgdb.url : path.join(dir, "sluice.db");
  const load0 = loadavg();
  const server = await startServer({ dir, db, bin });
  const http = httpClient(server.url, 4);
  try {
    const ids = [];
    let bytes = 0;
    for (let i = 0; i < opts.pipelines; i++) {
      const body = definition(i, ids.at(-1));
      bytes += JSON.stringify(body).length;
      ids.push((await http.post("/api/pipelines", body)).id);
    }
    await sleep(opts.gap); // the leader's reload after the last create
    await eventLoopDelay(http); // resets the server's histogram
    const probe = healthProbe(server.url);
    const saves = [];
    const saved = ids[Math.floor(ids.length / 2)];
    for (let s = 0; s < opts.saves; s++) {
      const t0 = performance.now();
      await http.call("PUT", `/api/pipelines/${saved}`, {
        description: `saved ${s}`,
        depends_on: [ids[s % 2 === 0 ? 0 : 1]],
      });
      saves.push(performance.now() - t0);
      await sleep(opts.gap);
    }
    const health = await probe.stop();
    const loop = await eventLoopDelay(http);
    return {
      rep,
      values: { save: median(saves), ...holdValues(health, loop) },
      probes: health.length,
      kib: bytes / opts.pipelines / 1024,
      load0,
      load1: loadavg(),
      command: server.command,
    };
  } finally {
    await http.close().catch(() => undefined);
    await server.stop();
    if (pgdb) await pgdb.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const LABELS = { save: "PUT /api/pipelines/{id} answered (median)", ...HOLD_LABELS };

await eachMode(opts, {
  once,
  report(mode, results, prefix) {
    console.log(
      `\n${prefix}${mode}: ${opts.saves} saves, ${opts.gap} ms apart, of one of ${opts.pipelines} scheduled pipelines ` +
        `(${results[0].kib.toFixed(1)} KiB each), ${results.length} fresh servers`,
    );
    for (const r of results)
      console.log(
        `  rep ${r.rep}: ${Object.entries(r.values)
          .map(([k, v]) => `${k} ${v.toFixed(1)}`)
          .join(", ")} (${r.probes} probes); loadavg ${r.load0} → ${r.load1}`,
      );
    printValues(results, LABELS);
  },
  compare: (mode, results, baseline) => printRatios(results, baseline, Object.keys(LABELS)),
  after(mode, results) {
    console.log(`  server started as: ${startedAs(results[0].command, mode)}`);
    console.log(`  reproduce: ${reproduceCommand(mode)}`);
  },
});
