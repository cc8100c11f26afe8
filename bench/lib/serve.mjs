// Shared harness for the HTTP benchmarks: a real `sluice serve` spawned as users run it (built packages: run
// `npm run build` first), a throw-away PostgreSQL database, RSS sampling, the server's event-loop delay from
// GET /metrics, a WebSocket event collector and small statistics helpers. Traffic goes to 127.0.0.1 only.
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { Agent, request } from "undici";
import WebSocket from "ws";
import { answerHelp } from "./help.mjs";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BIN = path.join(ROOT, "packages/server-koa/bin/sluice.js");
export const PG_ADMIN_URL = process.env.SLUICE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/**
 * Parses `--key value` / `--flag` arguments. `--help` prints the running script's opening comment (what it measures
 * and its options) and exits.
 */
export function parseArgs(argv, defaults) {
  const out = { ...defaults };
  answerHelp(argv, defaults);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) throw new Error(`unexpected argument '${a}'`);
    const key = a.slice(2);
    if (!(key in defaults)) throw new Error(`unknown option ${a} (known: ${Object.keys(defaults).join(", ")})`);
    if (typeof defaults[key] === "boolean") out[key] = true;
    else {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      out[key] = typeof defaults[key] === "number" ? Number(v) : v;
    }
  }
  return out;
}

export const loadavg = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

export async function freePort() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

/** The rows of one statement on a connection of its own to `url` (closed after it). */
export async function pgQuery(url, sql, params = []) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows;
  } finally {
    await c.end();
  }
}

/** A throw-away PostgreSQL database; `drop()` removes it. Throws when PostgreSQL is not reachable. */
export async function createPgDatabase() {
  const name = `sluice_bench_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  await pgQuery(PG_ADMIN_URL, `create database ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    /**
     * Bytes of write-ahead log the whole cluster has written so far (`pg_current_wal_insert_lsn()`): the difference
     * of two readings is what was written between them, by every database of the cluster.
     */
    async walBytes() {
      const [{ n }] = await pgQuery(
        PG_ADMIN_URL,
        "select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::text as n",
      );
      return Number(n);
    },
    async drop() {
      await pgQuery(PG_ADMIN_URL, `drop database if exists ${name} with (force)`);
    },
  };
}

/**
 * CPU seconds (user + system) used so far by the processes `pids` (every thread), or with `{ mainThread: true }` by
 * their main threads only: a Node process's event loop, without V8's garbage-collection and compiler threads, the
 * thread pool and Sluice's SQLite checkpoint thread.
 */
export function cpuSeconds(pids, { mainThread = false } = {}) {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`;
      const fields = fs.readFileSync(stat, "utf8").split(") ")[1].split(" ");
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    } catch {
      /* the process ended */
    }
  }
  return ticks / 100; // USER_HZ
}

/**
 * Seconds the main thread of process `pid` has spent so far runnable but waiting for a CPU (the second field of
 * Linux's /proc/PID/task/PID/schedstat, in ns; 0 where the kernel does not keep it): the part of an event-loop delay
 * that was not the server's own work but the machine's cores busy with other threads (V8's compiler, the client,
 * the database).
 */
export function mainThreadWaitSeconds(pid) {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").split(" ")[1]) / 1e9;
  } catch {
    return 0; // the process ended, or no schedstat
  }
}

/** Samples VmRSS of `pid` every `everyMs`; `peak(from, to)` is the largest sample taken in that window. */
export function rssSampler(pid, everyMs = 100) {
  const samples = [];
  const read = () => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
      if (m) samples.push([performance.now(), Number(m[1]) * 1024]);
    } catch {
      /* the process is gone */
    }
  };
  read();
  const timer = setInterval(read, everyMs);
  return {
    stop: () => clearInterval(timer),
    peak(from = 0, to = Infinity) {
      let max = 0;
      for (const [t, v] of samples) if (t >= from && t <= to && v > max) max = v;
      return max;
    },
  };
}

/** The command that started a benchmark's server (`startServer`), its port and database written generically. */
export const startedAs = (command, mode) =>
  command
    .replace(/--port \d+/, "--port <free>")
    .replace(
      /--db \S+/,
      mode === "sqlite" ? "--db <tmp>/sluice.db" : "--db postgres://postgres@127.0.0.1:5432/<throw-away>",
    );

/** The command that reproduces the running script's figures for `mode`: its own arguments, `--db` but one. */
export function reproduceCommand(mode) {
  const flags = process.argv.slice(2).filter((a, i, all) => !(a === "--db" || all[i - 1] === "--db"));
  return `node ${path.relative(ROOT, process.argv[1])} --db ${mode}${flags.length ? " " + flags.join(" ") : ""}`;
}

/** The `sluice` of another built checkout: a baseline to compare with (`--baseline DIR`). */
export const binOf = (checkout) => path.resolve(checkout, "packages/server-koa/bin/sluice.js");

/** `--baseline empty`: the baseline is this checkout on a database without the history of `--history N`. */
export const EMPTY_BASELINE = "empty";

/**
 * Runs `once(mode, rep, bin)` `opts.reps` times for each database of `opts.db` (sqlite, postgres or both); with
 * `opts.baseline` (another built checkout) its server runs first in each repetition, or with `opts.baseline` "empty"
 * (scripts with `--history`) this checkout's on a database without history (`once(mode, rep, BIN, { history: 0 })`).
 * Then `report(mode, results, label)` for the baseline's results and this checkout's,
 * `compare(mode, results, baselineResults)` when there is a baseline, and `after(mode, results)`. An unreachable
 * PostgreSQL skips that mode with a line saying so.
 */
export async function eachMode(opts, { once, report, compare, after }) {
  const { reps, baseline } = opts;
  const modes = opts.db === "both" ? ["sqlite", "postgres"] : [opts.db];
  const empty = baseline === EMPTY_BASELINE;
  if (empty && !(opts.history > 0)) throw new Error("--baseline empty compares with --history N: give both");
  const baselineOnce = empty
    ? (mode, rep) => once(mode, rep, BIN, { history: 0 })
    : baseline
      ? (mode, rep) => once(mode, rep, binOf(baseline))
      : null;
  for (const mode of modes) {
    const results = [];
    const before = [];
    try {
      for (let rep = 1; rep <= reps; rep++) {
        if (baselineOnce) before.push(await baselineOnce(mode, rep));
        results.push(await once(mode, rep));
      }
    } catch (e) {
      if (mode === "postgres" && /ECONNREFUSED|password|does not exist|connect/.test(e.message)) {
        console.log(`\n${mode}: skipped (${e.message})`);
        continue;
      }
      throw e;
    }
    const label = empty ? `WITH ${opts.history} RUNS OF HISTORY ` : "THIS CHECKOUT ";
    if (baselineOnce) report(mode, before, empty ? "BASELINE (no history) " : `BASELINE (${baseline}) `);
    report(mode, results, baselineOnce ? label : "");
    if (baselineOnce) compare(mode, results, before);
    after(mode, results);
  }
}

/**
 * Spawns `node [nodeArgs] packages/server-koa/bin/sluice.js serve --host 127.0.0.1 --port P --db DB [serveArgs]`
 * in `dir` (the state directory for server databases; `{dir}/files` is the first default file root for SQLite
 * too, because the database file lives in `dir`). Output goes to `{dir}/server.log`, copied on `stop()` to
 * `{keepLogIn}/server-{pid}.log` when `keepLogIn` is given (a script's `--keep-server-log DIR`: what `--trace-opt` or
 * `--trace-gc` printed outlives the state directory). `bin` replaces this checkout's `sluice` (see {@link binOf}).
 */
export async function startServer({ dir, db, serveArgs = [], nodeArgs = [], env = {}, bin = BIN, keepLogIn = "" }) {
  const port = await freePort();
  const args = [...nodeArgs, bin, "serve", "--host", "127.0.0.1", "--port", String(port), "--db", db, ...serveArgs];
  const logPath = path.join(dir, "server.log");
  const proc = spawnNode(args, { cwd: dir, env, logPath });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.gone)
      throw new Error(`sluice serve exited (${proc.child.exitCode ?? proc.child.signalCode}); see ${logPath}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`sluice serve did not answer /health within 30 s; see ${logPath}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    pid: proc.child.pid,
    logPath,
    command: `node ${args.map((a) => (a === bin ? path.relative(ROOT, bin) : a)).join(" ")}`,
    /** SIGTERM (graceful: the server flushes and closes; --cpu-prof writes its profile) and wait for the exit. */
    async stop() {
      const exited = await proc.stop();
      if (keepLogIn) {
        fs.mkdirSync(keepLogIn, { recursive: true });
        fs.copyFileSync(logPath, path.join(keepLogIn, `server-${proc.child.pid}.log`));
      }
      return exited;
    },
  };
}

/**
 * Spawns `node args` in `cwd` (environment: this process's, then `env`), its output appended to `logPath`. `gone`
 * tells whether it has exited, by itself or by a signal; `stop()` sends SIGTERM, SIGKILL after `killAfterMs`, and
 * resolves with how it exited.
 */
export function spawnNode(args, { cwd, env = {}, logPath, killAfterMs = 20_000 }) {
  const log = fs.openSync(logPath, "a");
  const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", log, log], env: { ...process.env, ...env } });
  fs.closeSync(log);
  const exited = new Promise((r) => child.once("exit", (code, signal) => r({ code, signal })));
  return {
    child,
    get gone() {
      return child.exitCode !== null || child.signalCode !== null;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
      const r = await exited;
      clearTimeout(timer);
      return r;
    },
  };
}

/** Node's options for a CPU profile written into `dir` (none without a `dir`), sampled every `intervalUs` if given. */
export function cpuProfArgs(dir, intervalUs) {
  if (!dir) return [];
  fs.mkdirSync(dir, { recursive: true });
  return [
    "--cpu-prof",
    ...(intervalUs ? [`--cpu-prof-interval=${intervalUs}`] : []),
    `--cpu-prof-dir=${path.resolve(dir)}`,
  ];
}

/**
 * The server process's own Node options from a script's options: `--cpu-prof DIR` (cpuProfArgs) and
 * `--server-node-args "FLAGS"` (space-separated Node/V8 flags, e.g. "--trace-gc"; the client keeps its own; what they
 * print goes to the server's log: keep it with `--keep-server-log DIR`, startServer's `keepLogIn`).
 */
export const serverNodeArgs = (opts) => [
  ...cpuProfArgs(opts["cpu-prof"]),
  ...(opts["server-node-args"] ?? "").split(" ").filter(Boolean),
];

/** A keep-alive HTTP client (undici) for one server. */
export function httpClient(base, connections = 64) {
  const agent = new Agent({ connections, keepAliveTimeout: 60_000, pipelining: 1 });
  /** Sent as `Authorization: Bearer` once set (signIn). */
  let token = null;
  async function call(method, p, body) {
    const res = await request(base + p, {
      method,
      dispatcher: agent,
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 400) throw new Error(`${method} ${p} → ${res.statusCode}: ${text.slice(0, 300)}`);
    return { status: res.statusCode, text, json: () => JSON.parse(text) };
  }
  return {
    call,
    get: async (p) => (await call("GET", p)).json(),
    post: async (p, body) => (await call("POST", p, body)).json(),
    /** The token requests carry from now on (null: none). */
    get token() {
      return token;
    },
    set token(value) {
      token = value;
    },
    close: () => agent.close(),
  };
}

/**
 * `--auth token`: creates the first user (an admin) on the fresh server and logs in, so that every later request of
 * `http` (and the WebSocket, given `http.token`) is made as that user, as on a server with users: authentication
 * is then on for every request. `--auth none` (default): open mode, no users, no credentials.
 */
export async function signIn(http, auth) {
  if (auth === "none" || !auth) return;
  if (auth !== "token") throw new Error(`unknown --auth ${auth} (none | token)`);
  const user = { username: "bench", password: "bench-password-for-a-throwaway-server", role: "admin" };
  await http.post("/api/auth/users", user);
  http.token = (await http.post("/api/auth/login", { username: user.username, password: user.password })).token;
}

/** The server's event-loop delay from GET /metrics (prom-client; the histogram is reset by every scrape). */
export async function eventLoopDelay(http) {
  const { text } = await http.call("GET", "/metrics");
  const get = (name) => {
    const m = new RegExp(`^\\w*nodejs_eventloop_lag_${name}_seconds\\s+([0-9.eE+-]+)`, "m").exec(text);
    return m ? Number(m[1]) * 1000 : NaN;
  };
  return { max: get("max"), p99: get("p99"), p50: get("p50"), min: get("min") };
}

/**
 * A WebSocket client on /ws subscribed to one pipeline. Terminal events are kept per run id with the time they
 * arrived (performance.now()), so an event that arrives before the POST answer is not lost; `firstNodeStarted`
 * keeps the first node.started per run.
 */
export async function eventCollector(base, pipelineId, token = null) {
  const ws = new WebSocket(`${base.replace(/^http/, "ws")}/ws`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const terminal = new Map();
  const firstNodeStarted = new Map();
  const waiters = new Map();
  let count = 0;
  let onCount = null;
  ws.on("message", (data) => {
    const t = performance.now();
    const m = JSON.parse(data.toString());
    if (m.type === "node.started") {
      if (!firstNodeStarted.has(m.run_id)) firstNodeStarted.set(m.run_id, t);
    } else if (m.type === "run.completed" || m.type === "run.failed" || m.type === "run.cancelled") {
      if (terminal.has(m.run_id)) return;
      terminal.set(m.run_id, { type: m.type, t, error: m.error });
      count++;
      waiters.get(m.run_id)?.();
      onCount?.(count);
    }
  });
  await new Promise((resolve, reject) => {
    ws.once("error", reject);
    ws.on("message", function first(data) {
      const m = JSON.parse(data.toString());
      if (m.type === "hello") ws.send(JSON.stringify({ type: "subscribe", pipeline_id: pipelineId }));
      if (m.type === "subscribed") {
        ws.off("message", first);
        resolve();
      }
    });
  });
  return {
    terminal,
    firstNodeStarted,
    get count() {
      return count;
    },
    /** Resolves when `n` terminal events have arrived (or rejects after `timeoutMs`). */
    waitForCount(n, timeoutMs) {
      if (count >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${count}/${n} runs ended within ${timeoutMs} ms`)),
          timeoutMs,
        );
        onCount = (c) => {
          if (c >= n) {
            clearTimeout(timer);
            onCount = null;
            resolve();
          }
        };
      });
    },
    /** Resolves with the terminal event of `runId`. */
    waitForRun(runId, timeoutMs = 30_000) {
      const done = terminal.get(runId);
      if (done) return Promise.resolve(done);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`run ${runId} did not end within ${timeoutMs} ms`)), timeoutMs);
        waiters.set(runId, () => {
          clearTimeout(timer);
          waiters.delete(runId);
          resolve(terminal.get(runId));
        });
      });
    },
    close: () => ws.close(),
  };
}

/** All runs of a pipeline, through the API (paged). */
export async function listRuns(http, pipelineId) {
  const out = [];
  for (let page = 1; ; page++) {
    const env = await http.get(`/api/pipelines/${pipelineId}/runs?page=${page}&per_page=500`);
    out.push(...env.items);
    if (page >= env.pages) return out;
  }
}

/** Counts of what the runs of `pipelineId` left in the store, read from the database itself (not the API). */
export async function storeCounts(db, pipelineId) {
  const sql = {
    runs: "select status, count(*) as n from runs where pipeline_id = ? group by status",
    node_runs:
      "select nr.status, count(*) as n from node_runs nr join runs r on r.id = nr.run_id where r.pipeline_id = ? group by nr.status",
    logs: "select count(*) as n from run_logs l join runs r on r.id = l.run_id where r.pipeline_id = ?",
    outputs:
      "select o.kind as status, count(*) as n from node_outputs o join runs r on r.id = o.run_id where r.pipeline_id = ? group by o.kind",
  };
  const result = {};
  if (db.startsWith("postgres")) {
    const c = new pg.Client({ connectionString: db });
    await c.connect();
    try {
      for (const [k, q] of Object.entries(sql)) {
        let i = 0;
        const { rows } = await c.query(
          q.replace(/\?/g, () => `$${++i}`),
          [pipelineId],
        );
        result[k] = Object.fromEntries(rows.map((r) => [r.status ?? "n", Number(r.n)]));
      }
    } finally {
      await c.end();
    }
  } else {
    const { default: Database } = await import("better-sqlite3");
    const d = new Database(db, { readonly: true, fileMustExist: true });
    try {
      for (const [k, q] of Object.entries(sql)) {
        const rows = d.prepare(q).all(pipelineId);
        result[k] = Object.fromEntries(rows.map((r) => [r.status ?? "n", Number(r.n)]));
      }
    } finally {
      d.close();
    }
  }
  return result;
}

export const sorted = (xs) => [...xs].sort((a, b) => a - b);
export const quantile = (xs, q) => {
  const s = sorted(xs);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN;
};
export const median = (xs) => {
  const s = sorted(xs);
  const n = s.length;
  return n === 0 ? NaN : n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
/** "min / median / max" of a list of figures. */
export const mmm = (xs, digits = 2, unit = "") => {
  const s = sorted(xs);
  const f = (v) => `${v.toFixed(digits)}${unit}`;
  return `${f(s[0])} / ${f(median(s))} / ${f(s[s.length - 1])}`;
};

/** A small CSV of orders in `{dir}/files/orders.csv` (the first default file root). */
export function writeOrdersCsv(dir, rows = 20) {
  const files = path.join(dir, "files");
  fs.mkdirSync(files, { recursive: true });
  const regions = ["eu", "us", "apac", "latam"];
  const lines = ["id,region,customer,amount,status,day"];
  for (let i = 1; i <= rows; i++) {
    const status = i % 5 === 0 ? "refunded" : "ok";
    lines.push(
      `${i},${regions[i % 4]}, customer ${i % 7} ,${(i * 13.37) % 500},${status},2026-11-${String((i % 28) + 1).padStart(2, "0")}`,
    );
  }
  fs.writeFileSync(path.join(files, "orders.csv"), lines.join("\n") + "\n");
  return "orders.csv";
}

/** Real `transform` rules over the orders CSV's columns (cast, filter, computed column, function, sort). */
export const ORDER_RULES = [
  { type: "cast", columns: ["amount"], to: "float" },
  { type: "filter", expression: 'status == "ok" && amount > 0' },
  { type: "add_column", name: "gross", expression: "amount * 1.19" },
  { type: "apply_function", column: "customer", function: "trim" },
  { type: "apply_function", column: "region", function: "upper" },
  { type: "sort", columns: ["gross"], descending: true },
];

export const tmpDir = (prefix) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/**
 * A second client asking `GET /health` at `url` every 20 ms, as a UI, a monitoring probe or another user would, until
 * `stop()`, which resolves with each answer's time in ms: what the server's other work costs everyone else.
 */
export function healthProbe(url) {
  const probe = httpClient(url, 1);
  const times = [];
  let done = false;
  const probing = (async () => {
    while (!done) {
      const h0 = performance.now();
      await probe.call("GET", "/health");
      times.push(performance.now() - h0);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    async stop() {
      done = true;
      await probing.finally(() => probe.close().catch(() => undefined));
      return times;
    },
  };
}

/** The longest and the 99th-percentile answer among a health probe's times (healthProbe), and the event-loop delay. */
export const holdValues = (health, loop) => ({
  healthMax: Math.max(...health),
  healthP99: quantile(health, 0.99),
  loopMax: loop.max,
});

/** The labels of holdValues, for a report. */
export const HOLD_LABELS = {
  healthMax: "longest GET /health meanwhile",
  healthP99: "GET /health, 99th percentile",
  loopMax: "largest event-loop delay (/metrics)",
};

/** Prints each labelled value of `results` (`r.values[key]`) as min/median/max. */
export function printValues(results, labels, { digits = 1, unit = " ms", width = 44 } = {}) {
  for (const k of Object.keys(labels))
    console.log(
      `  ${labels[k].padEnd(width)} min/median/max ${mmm(
        results.map((r) => r.values[k]),
        digits,
        unit,
      )}`,
    );
}

/** Prints this/baseline ratios of the medians of `keys` (`r.values[key]`). */
export function printRatios(results, baseline, keys) {
  const ratios = keys.map((k) => {
    const ratio = median(results.map((r) => r.values[k])) / median(baseline.map((r) => r.values[k]));
    return `${k} ×${ratio.toFixed(2)}`;
  });
  console.log(`  this/baseline (medians): ${ratios.join(", ")}`);
}
