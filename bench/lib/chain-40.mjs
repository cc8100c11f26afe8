// The 40-node chain of `bench/http-chain-40.mjs`, measured on one fresh `sluice serve` (also run side by side with a
// peer by `bench/peer-n8n-chain-40.mjs`): its pipeline and the measurement of one repetition.
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fillHistory } from "./history.mjs";
import {
  serverNodeArgs,
  cpuSeconds,
  mainThreadWaitSeconds,
  createPgDatabase,
  eventCollector,
  httpClient,
  loadavg,
  median,
  signIn,
  startServer,
  tmpDir,
  writeOrdersCsv,
} from "./serve.mjs";

/** Transform nodes in the chain. */
export const N = 40;

/** Each transform's rules: a computed column, a filter on it and the CSV's status, a cast, and the column dropped. */
export const chainRules = (i) => [
  { type: "add_column", name: "step", expression: `amount * 1.01 + ${i}` },
  { type: "filter", expression: 'step > 0 && status == "ok"' },
  { type: "cast", column: "step", to: "int" },
  { type: "drop", columns: ["step"] },
];

/**
 * The pipeline: `file` — `source_file` reading `csv` (cast) and N transforms after it; `transform` — the N transforms
 * alone (the first has no input, so every rule runs over 0 rows).
 */
export function chainSpec(csv, shape = "file") {
  const nodes = [];
  if (shape === "file") nodes.push({ id: "read", type: "source_file", config: { path: csv, cast: true } });
  else if (shape !== "transform") throw new Error(`unknown --shape ${shape}`);
  for (let i = 0; i < N; i++) nodes.push({ id: `t${i}`, type: "transform", config: { rules: chainRules(i) } });
  const edges = nodes.slice(1).map((n, i) => ({ from: nodes[i].id, to: n.id }));
  return { name: `bench chain of ${N} transforms`, nodes, edges };
}

/**
 * One repetition on a fresh server and database (`mode`: sqlite | postgres; `bin`: another checkout's sluice):
 * with `opts.history`, that many finished runs of another pipeline put in the database first (`fillHistory`); then
 * `opts.warmup` runs, then `opts.runs` runs triggered one at a time, each after a 20 ms pause. Returns the medians
 * and every measured value (ms) of: health, trigger, serverSide, firstNode, wsFirstNode, wsDone, toStart (the POST sent to
 * the run's started_at) and afterEnd (the run's finished_at to its run.completed seen: its last batch committed and
 * its events delivered; both read against the client's wall clock, which the server's shares), mainWait (how long
 * the server's main thread was runnable but waiting for a CPU from the POST to run.completed, mainThreadWaitSeconds;
 * wsDone less that is what the run would take on cores of its own); `cpuMsPerRun` and
 * `mainCpuMsPerRun`, the server's CPU time (user + system, /proc) per measured run with its GET /health and
 * GET /runs/{id}, of all its threads and of its main thread (the event loop; less at the mercy of the machine's other
 * load than the times are); on PostgreSQL also `walKiB`, the write-ahead log written per measured run (by the whole
 * cluster meanwhile: keep it otherwise idle); `historyMs`, what filling the history took (null without).
 */
export async function measureChain(mode, rep, bin, opts) {
  const load0 = loadavg();
  const nodeArgs = serverNodeArgs(opts);
  const serverOptions = { mode, bin, nodeArgs, auth: opts.auth, keepLogIn: opts["keep-server-log"] };
  return withPipelineServer(
    serverOptions,
    (csv) => chainSpec(csv, opts.shape),
    async (setup) => {
      const { server, http, events, pipeline, spec, pgdb, db } = setup;
      const historyMs = opts.history > 0 ? await fillHistory({ http, db, runs: opts.history }) : null;
      const m = {
        health: [],
        trigger: [],
        serverSide: [],
        firstNode: [],
        wsFirstNode: [],
        wsDone: [],
        toStart: [],
        afterEnd: [],
        mainWait: [],
      };
      const pause = () => new Promise((r) => setTimeout(r, 20)); // the run's batched writes go out; the server idles
      let walStart = 0;
      let cpuStart = 0;
      let mainCpuStart = 0;
      for (let i = 0; i < opts.warmup + opts.runs; i++) {
        if (i === opts.warmup) {
          if (pgdb) walStart = await pgdb.walBytes();
          cpuStart = cpuSeconds([server.pid]);
          mainCpuStart = cpuSeconds([server.pid], { mainThread: true });
        }
        // the floor under the trigger's answer time: an HTTP round trip to an idle server, after the same pause
        const h0 = performance.now();
        await http.call("GET", "/health");
        const health = performance.now() - h0;
        await pause();
        const wait0 = mainThreadWaitSeconds(server.pid);
        const t0 = performance.now();
        const res = await http.call("POST", `/api/pipelines/${pipeline.id}/run`, { params: {} });
        const tAnswer = performance.now();
        const { id } = res.json();
        const end = await events.waitForRun(id);
        const waitMs = (mainThreadWaitSeconds(server.pid) - wait0) * 1000;
        if (end.type !== "run.completed") throw new Error(`run ${id} ended ${end.type}: ${end.error}`);
        const run = await http.get(`/api/runs/${id}`);
        if (run.status !== "success" || run.node_runs.length !== spec.nodes.length)
          throw new Error(`run ${id}: ${run.status} with ${run.node_runs.length} node runs`);
        if (i < opts.warmup) continue;
        const firstStart = Math.min(...run.node_runs.map((n) => Date.parse(n.started_at)));
        m.health.push(health);
        m.trigger.push(tAnswer - t0);
        m.serverSide.push(Date.parse(run.finished_at) - Date.parse(run.started_at));
        m.firstNode.push(firstStart - Date.parse(run.created_at));
        m.wsFirstNode.push((events.firstNodeStarted.get(id) ?? NaN) - t0);
        m.wsDone.push(end.t - t0);
        // wsDone is toStart + serverSide + afterEnd, to the servers' timestamps' millisecond
        m.toStart.push(Date.parse(run.started_at) - (performance.timeOrigin + t0));
        m.afterEnd.push(performance.timeOrigin + end.t - Date.parse(run.finished_at));
        m.mainWait.push(waitMs);
        await pause();
      }
      const cpuMsPerRun = ((cpuSeconds([server.pid]) - cpuStart) * 1000) / opts.runs;
      const mainCpuMsPerRun = ((cpuSeconds([server.pid], { mainThread: true }) - mainCpuStart) * 1000) / opts.runs;
      // what PostgreSQL must flush before it reports a run's writes committed: the chain's final batch is most of it
      const walKiB = pgdb ? ((await pgdb.walBytes()) - walStart) / opts.runs / 1024 : null;
      const medians = Object.fromEntries(Object.entries(m).map(([k, xs]) => [k, median(xs)]));
      return {
        rep,
        medians,
        all: m,
        cpuMsPerRun,
        mainCpuMsPerRun,
        walKiB,
        historyMs,
        load0,
        load1: loadavg(),
        nodes: spec.nodes.length,
        command: server.command,
      };
    },
  );
}

/**
 * One fresh server and database for one repetition (`mode`: sqlite | postgres; `bin`: another checkout's sluice;
 * `nodeArgs` and `env` for its process; `auth`: none | token, see `signIn`; `keepLogIn`, see startServer), holding the pipeline `specOf(csv)` (`csv`:
 * a 20-row orders file in its state directory), and a WebSocket collecting that pipeline's events. Calls
 * `fn({ server, http, events, pipeline, spec, pgdb, db, dir })` (`db`: what the server was given, the SQLite file or the
 * PostgreSQL URL), then stops the server and removes what it made.
 */
export async function withPipelineServer({ mode, bin, nodeArgs = [], env = {}, auth = "none", keepLogIn }, specOf, fn) {
  const dir = tmpDir("sluice-bench-http-");
  const csv = writeOrdersCsv(dir);
  const pgdb = mode === "postgres" ? await createPgDatabase() : null;
  const db = pgdb ? pgdb.url : path.join(dir, "sluice.db");
  let server;
  let http;
  let events;
  try {
    server = await startServer({ dir, db, bin, nodeArgs, env, keepLogIn });
    http = httpClient(server.url, 4);
    await signIn(http, auth);
    const spec = specOf(csv);
    const pipeline = await http.post("/api/pipelines", spec);
    events = await eventCollector(server.url, pipeline.id, http.token);
    return await fn({ server, http, events, pipeline, spec, pgdb, db, dir });
  } finally {
    events?.close();
    await http?.close().catch(() => undefined);
    await server?.stop();
    if (pgdb) await pgdb.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
