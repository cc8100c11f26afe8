import { fork, type ChildProcess } from "node:child_process";
import { bundledScript } from "../../bundled-script.js";
import { oneATurn } from "../../one-a-turn.js";
import { SluiceError } from "../../errors.js";
import type { Row } from "../dataset.js";

/** Requests to the worker process (`sqlite-worker-process.mjs`); each gets exactly one reply with the same id. */
type ToWorker =
  | { t: "run"; sql: string; params: unknown[] }
  | { t: "runMany"; sql: string; rows: unknown[][] }
  | { t: "prepare"; sql: string; params: unknown[] }
  | { t: "more"; query: number; size: number }
  | { t: "drop"; query: number }
  | { t: "close" };

type FromWorker = { id: number } & (
  | { t: "ready" }
  | { t: "done"; changes: number; rows: Row[] }
  | { t: "statement"; reader: boolean; readonly: boolean; columns: string[] }
  | { t: "rows"; rows: Row[]; blobs: boolean; done: boolean }
  | { t: "error"; message: string }
);

type Reply<T extends FromWorker["t"]> = Extract<FromWorker, { t: T }>;

/** Blob cells arrive as plain Uint8Arrays over the IPC channel; the nodes see Buffers. */
function restoreBuffers(rows: Row[]): void {
  for (const row of rows) {
    for (const [key, value] of Object.entries(row)) {
      if (value instanceof Uint8Array && !Buffer.isBuffer(value))
        row[key] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    }
  }
}

/** A statement prepared in the worker: what SQLite says about it, and its rows on demand. */
export interface SqliteQuery {
  /** The statement returns rows (SELECT, VALUES, PRAGMA that reports, … RETURNING). */
  readonly reader: boolean;
  /** SQLite's `sqlite3_stmt_readonly`: the statement writes nothing to the database content. */
  readonly readonly: boolean;
  readonly columns: string[];
  /** The rows in batches; the next batch is read in the worker while the caller handles this one. */
  batches(size: number): AsyncGenerator<Row[], void>;
  /** Releases the statement without reading it. */
  drop(): Promise<void>;
}

/**
 * One SQLite database held by a worker process, so that user SQL never runs on the server's event loop. `stop()` kills
 * the process: everything pending fails at once with the reason given, an open transaction is rolled back (SQLite's
 * journal), and the statement stops. A worker thread could not be stopped inside one long SQLite step: an endless
 * query, timed out or cancelled, went on using a core until the server restarted.
 *
 * The process gets the database path and nothing of the server's environment (keys, tokens); its output is dropped.
 */
export class SqliteWorker {
  private readonly worker: ChildProcess;
  private readonly waiting = new Map<number, { resolve(m: FromWorker): void; reject(e: Error): void }>();
  private nextId = 1;
  private stopped: Error | null = null;

  private constructor(filename: string, release: () => void) {
    this.worker = fork(
      bundledScript(
        import.meta.url,
        "sqlite-worker-process.mjs",
        "engine/db/sqlite-worker-process.js",
        "the SQLite worker script",
      ),
      [filename],
      {
        serialization: "advanced",
        execArgv: [],
        env: workerEnvironment(),
        stdio: ["ignore", "ignore", "ignore", "ipc"],
      },
    );
    live.add(this.worker);
    killLiveWorkersOnExit();
    this.worker.once("exit", () => {
      live.delete(this.worker);
      release();
    });
    this.worker.on("message", (m: FromWorker) => {
      const waiter = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.t === "error") waiter?.reject(new Error(m.message));
      else waiter?.resolve(m);
    });
    this.worker.on("error", (e) =>
      this.fail(new SluiceError("unprocessable", `the SQLite worker failed: ${e.message}`)),
    );
    this.worker.on("exit", (code) =>
      this.fail(new SluiceError("unprocessable", `the SQLite worker exited (code ${code})`)),
    );
  }

  /** Starts a worker process on the database file `filename` (`:memory:` for a fresh in-memory database). */
  static async open(filename: string): Promise<SqliteWorker> {
    const release = await workerSlot();
    let sqlite: SqliteWorker;
    try {
      // one process started a turn (oneATurn): a wave of `sql` nodes must not hold the server while all start
      sqlite = await oneATurn(() => new SqliteWorker(filename, release));
    } catch (e) {
      release();
      throw e;
    }
    await new Promise<FromWorker>((resolve, reject) => sqlite.waiting.set(0, { resolve, reject }));
    return sqlite;
  }

  private fail(reason: Error): void {
    this.stopped ??= reason;
    for (const waiter of this.waiting.values()) waiter.reject(this.stopped);
    this.waiting.clear();
  }

  private request<T extends FromWorker["t"]>(message: ToWorker, expected: T, id = this.nextId++): Promise<Reply<T>> {
    if (this.stopped) return Promise.reject(this.stopped);
    return new Promise<FromWorker>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.send({ ...message, id }, (e) => {
        if (e) this.fail(new SluiceError("unprocessable", `the SQLite worker is gone: ${e.message}`));
      });
    }).then((m) => {
      if (m.t !== expected) throw new SluiceError("internal", `the SQLite worker answered ${m.t} to ${message.t}`);
      return m as Reply<T>;
    });
  }

  /** Runs one statement; a statement that returns rows gives them all. */
  async run(sql: string, params: readonly unknown[] = []): Promise<{ changes: number; rows: Row[] }> {
    const { changes, rows } = await this.request({ t: "run", sql, params: [...params] }, "done");
    restoreBuffers(rows);
    return { changes, rows };
  }

  /** Runs one statement once per parameter list (a batch of inserts). */
  async runMany(sql: string, rows: unknown[][]): Promise<void> {
    await this.request({ t: "runMany", sql, rows }, "done");
  }

  /** Runs `work` inside BEGIN … COMMIT; any failure rolls back, so nothing of it is written. */
  async transaction<T>(work: () => Promise<T>): Promise<T> {
    await this.run("BEGIN");
    try {
      const result = await work();
      await this.run("COMMIT");
      return result;
    } catch (e) {
      await this.run("ROLLBACK").catch(() => undefined);
      throw e;
    }
  }

  /** Prepares a query in the worker; nothing runs until the first batch is asked for. */
  async prepare(sql: string, params: readonly unknown[] = []): Promise<SqliteQuery> {
    const id = this.nextId++;
    const info = await this.request({ t: "prepare", sql, params: [...params] }, "statement", id);
    let open = true;
    const drop = async () => {
      if (!open) return;
      open = false;
      if (!this.stopped) await this.request({ t: "drop", query: id }, "done");
    };
    const more = (size: number) => this.request({ t: "more", query: id, size }, "rows");
    return {
      reader: info.reader,
      readonly: info.readonly,
      columns: info.columns,
      drop,
      async *batches(size: number) {
        try {
          let next = more(size);
          for (;;) {
            const batch = await next;
            if (batch.done) open = false;
            else next = more(size);
            if (batch.blobs) restoreBuffers(batch.rows);
            if (batch.rows.length) yield batch.rows;
            if (batch.done) return;
          }
        } finally {
          await drop().catch(() => undefined);
        }
      },
    };
  }

  /** Ends the process now (a cancel or timeout, or once closed): pending requests fail with `reason`. */
  stop(reason: Error): void {
    this.fail(reason);
    if (!this.worker.killed && this.worker.exitCode === null && this.worker.signalCode === null)
      this.worker.kill("SIGKILL");
    this.worker.unref();
  }

  /** Closes the database in the worker, then ends the process. */
  async close(): Promise<void> {
    if (!this.stopped) await this.request({ t: "close" }, "done").catch(() => undefined);
    this.stop(new SluiceError("unprocessable", "the SQLite database is closed"));
  }
}

/** Most worker processes at once (a process takes tens of MB); a node wanting one more waits for one to end. */
export const MAX_SQLITE_WORKERS = 16;
let workersRunning = 0;
const waitingForWorker: (() => void)[] = [];

/**
 * Waits for a free worker slot; the function returned frees it (once, however often it is called), handing it to the
 * first waiting, if any.
 */
async function workerSlot(): Promise<() => void> {
  if (workersRunning < MAX_SQLITE_WORKERS) workersRunning++;
  else await new Promise<void>((resolve) => waitingForWorker.push(resolve));
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const next = waitingForWorker.shift();
    if (next) next();
    else workersRunning--;
  };
}

/** Every worker process not yet exited. */
const live = new Set<ChildProcess>();
let exitHook = false;

/** The server's own exit (a crash included) takes its workers along; each also watches for a server gone. */
function killLiveWorkersOnExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once("exit", killSqliteWorkers);
}

/** Kills every SQLite worker process now (a server ending without waiting for its runs). */
export function killSqliteWorkers(): void {
  for (const worker of live) worker.kill("SIGKILL");
}

/** The environment of a worker process: where SQLite puts temporary files, the time zone; nothing else. */
function workerEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // TZ: SQLite's 'localtime' is the server's
  for (const name of ["PATH", "TMPDIR", "SQLITE_TMPDIR", "TZ"])
    if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

/** How many SQLite worker processes are still running after being told to end. */
export function sqliteWorkersStillRunning(): number {
  return [...live].filter((worker) => worker.killed).length;
}

/** Runs `work` with a worker on `filename`; an abort of `signal` terminates the worker. Always ends it. */
export async function withSqliteWorker<T>(
  filename: string,
  signal: AbortSignal,
  work: (sqlite: SqliteWorker) => Promise<T>,
): Promise<T> {
  const sqlite = await SqliteWorker.open(filename);
  const onAbort = () => sqlite.stop(cancelledError());
  signal.addEventListener("abort", onAbort, { once: true });
  if (signal.aborted) onAbort();
  try {
    return await work(sqlite);
  } finally {
    signal.removeEventListener("abort", onAbort);
    await sqlite.close();
  }
}

export const cancelledError = () => new SluiceError("unprocessable", "the statement was cancelled");
