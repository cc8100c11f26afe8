// What WebSocket clients that stop reading cost everyone else: a real `sluice serve` (spawned, built packages — run
// `npm run build` first), --clients clients (50 by default) that subscribe to every event and then read nothing, and
// --runs runs of the 40-node chain of `http-chain-40.mjs` (400: on a two-core machine, enough for the server to drop
// every client, each then holding over 1 MiB of unsent events), while another client asks `GET /health` every 20 ms.
// Reported per repetition: the longest and the 99th-percentile `GET /health` answer, the largest event-loop delay the
// server's /metrics saw (prom-client, 10 ms resolution), and how many clients the server dropped.
// Options: --db sqlite|postgres|both (sqlite) --clients 50 --runs 400 --reps 3
// --baseline DIR (another built checkout: each repetition runs its server too, and the report adds this/baseline)
import fs from "node:fs";
import path from "node:path";
import WebSocket from "ws";
import { chainSpec } from "./lib/chain-40.mjs";
import {
  HOLD_LABELS,
  createPgDatabase,
  eachMode,
  eventLoopDelay,
  healthProbe,
  holdValues,
  httpClient,
  loadavg,
  parseArgs,
  printRatios,
  printValues,
  reproduceCommand,
  startServer,
  startedAs,
  tmpDir,
  writeOrdersCsv,
} from "./lib/serve.mjs";

const opts = parseArgs(process.argv.slice(2), { db: "sqlite", clients: 50, runs: 400, reps: 3, baseline: "" });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A client subscribed to every event that then reads nothing (its socket paused); `dropped` once the server closed it. */
async function stalledClient(url) {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws`);
  await new Promise((resolve, reject) => ws.once("message", resolve).once("error", reject)); // hello
  ws.send(JSON.stringify({ type: "subscribe" }));
  await new Promise((resolve) => ws.once("message", resolve)); // subscribed
  ws._socket.pause();
  return ws;
}

async function once(mode, rep, bin) {
  const dir = tmpDir("sluice-bench-stalled-clients-");
  const pgdb = mode === "postgres" ? await createPgDatabase() : null;
  const db = pgdb ? pgdb.url : path.join(dir, "sluice.db");
  const load0 = loadavg();
  const server = await startServer({ dir, db, bin });
  const http = httpClient(server.url, 4);
  const clients = [];
  try {
    const pipeline = await http.post("/api/pipelines", chainSpec(writeOrdersCsv(dir, 20)));
    for (let i = 0; i < opts.clients; i++) clients.push(await stalledClient(server.url));
    await eventLoopDelay(http); // resets the server's histogram
    const probe = healthProbe(server.url);
    // the server's count of open event stream connections is not in the API: a dropped client is seen by reading it
    let triggered = 0;
    for (; triggered < opts.runs; triggered++) {
      await http.post(`/api/pipelines/${pipeline.id}/run`, {});
      if (triggered % 8 === 7) await sleep(30);
    }
    await sleep(2000);
    const health = await probe.stop();
    const loop = await eventLoopDelay(http);
    const closed = clients.map((ws) => new Promise((resolve) => ws.once("close", () => resolve(true))));
    for (const ws of clients) ws._socket.resume(); // reads what it was sent, then the server's close if it came
    const dropped = (await Promise.all(closed.map((c) => Promise.race([c, sleep(5000).then(() => false)])))).filter(
      Boolean,
    ).length;
    return {
      rep,
      values: holdValues(health, loop),
      dropped,
      triggered,
      probes: health.length,
      load0,
      load1: loadavg(),
      command: server.command,
    };
  } finally {
    for (const ws of clients) ws.terminate();
    await http.close().catch(() => undefined);
    await server.stop();
    if (pgdb) await pgdb.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await eachMode(opts, {
  once,
  report(mode, results, prefix) {
    console.log(
      `\n${prefix}${mode}: ${opts.clients} clients that stop reading, ${opts.runs} runs of the 40-node chain, ` +
        `${results.length} fresh servers`,
    );
    for (const r of results)
      console.log(
        `  rep ${r.rep}: ${Object.entries(r.values)
          .map(([k, v]) => `${k} ${v.toFixed(1)}`)
          .join(", ")}; ${r.dropped} of ${opts.clients} clients dropped (${r.probes} probes); ` +
          `loadavg ${r.load0} → ${r.load1}`,
      );
    printValues(results, HOLD_LABELS);
  },
  compare: (mode, results, baseline) => printRatios(results, baseline, Object.keys(HOLD_LABELS)),
  after(mode, results) {
    console.log(`  server started as: ${startedAs(results[0].command, mode)}`);
    console.log(`  reproduce: ${reproduceCommand(mode)}`);
  },
});
