// The child process behind sqlite-worker.ts: it holds one SQLite database (a file, or ":memory:") so that user SQL
// never runs on the server's event loop, and a statement that must stop (a cancel, a timeout) stops when the process
// is killed — a thread cannot be stopped inside a SQLite step. It executes what it is sent and decides nothing: which
// statements may run is decided by the caller from the `statement` reply. Message shapes: the ToWorker/FromWorker
// types in sqlite-worker.ts. The database path is the first argument.
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";

// The server ends this process (it kills it on a cancel, a timeout or its own exit). A thread of its own watches for
// a server that died without doing so (killed outright, out of memory): this main thread may be inside one SQLite
// step for ever. Signals sent to the whole process group (Ctrl-C, a service manager's stop) are left to the server,
// which first records the run's nodes as interrupted.
const server = process.ppid;
/** Started once this process has said it is ready: a thread takes some milliseconds to start. */
const watchServer = () =>
  new Worker(
    `const { workerData } = require("node:worker_threads");
    setInterval(() => { if (process.ppid !== workerData) process.kill(process.pid, "SIGKILL"); }, 500);`,
    { eval: true, workerData: server },
  ).unref();
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => undefined);

/** The database, or why it could not be opened (told to the server as the answer to its first request). */
let db = null;
let openError = null;
try {
  db = new Database(process.argv[2]);
  // SQLite's own load_extension() SQL function is already off in better-sqlite3; these say so clearly
  const noExtensions = () => {
    throw new Error("load_extension is not available: extensions cannot be loaded from SQL");
  };
  db.function("load_extension", (_path) => noExtensions());
  db.function("load_extension", (_path, _entry) => noExtensions());
} catch (e) {
  openError = e instanceof Error ? e.message : String(e);
}

/** Prepared statements by SQL text: batch inserts repeat the same statement many times. */
const cache = new Map();
const CACHE_SIZE = 16;
/** Open queries by id: the statement and, once the first batch is asked for, its row iterator. */
const queries = new Map();

function prepareCached(sql) {
  let statement = cache.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value);
    cache.set(sql, statement);
  }
  return statement;
}

/** The IPC channel's serialization turns Buffers into plain Uint8Arrays; SQLite binds them as blobs either way. */
const bindable = (params) =>
  params.map((v) =>
    v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v,
  );

/**
 * A row of a statement read in raw mode, as an object of its columns' own keys. better-sqlite3's own row objects are
 * built by assignment, so a column named "__proto__" would set the row's prototype instead of a key.
 */
function rowOf(names, values) {
  const row = {};
  for (let i = 0; i < names.length; i++) {
    if (names[i] === "__proto__")
      Object.defineProperty(row, "__proto__", {
        value: values[i],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else row[names[i]] = values[i];
  }
  return row;
}

const columnNames = (statement) => statement.columns().map((c) => c.name);

/** About how many characters of values a batch carries at most (after its first row): 50,000 rows of 100 KB each were
 * one message of 500 MB into the server's heap. */
const BATCH_CHARS = 8 * 1024 * 1024;

/** About the size of a row's values: text by its length, bytes by theirs, anything else 8. */
const sizeOf = (values) => {
  let size = 0;
  for (const v of values) size += typeof v === "string" ? v.length : v instanceof Uint8Array ? v.byteLength : 8;
  return size;
};

function nextBatch(query, size) {
  query.iterator ??= query.statement.raw(true).iterate(bindable(query.params));
  const rows = [];
  let blobs = false;
  let chars = 0;
  while (rows.length < size && chars < BATCH_CHARS) {
    const step = query.iterator.next();
    if (step.done) return { rows, blobs, done: true };
    if (!blobs) blobs = step.value.some((v) => v instanceof Uint8Array);
    chars += sizeOf(step.value);
    rows.push(rowOf(query.names, step.value));
  }
  return { rows, blobs, done: false };
}

function handle(m) {
  switch (m.t) {
    case "run": {
      const statement = prepareCached(m.sql);
      const params = bindable(m.params);
      if (statement.reader) {
        const names = columnNames(statement);
        return {
          t: "done",
          changes: 0,
          rows: statement
            .raw(true)
            .all(params)
            .map((values) => rowOf(names, values)),
        };
      }
      return { t: "done", changes: statement.run(params).changes, rows: [] };
    }
    case "runMany": {
      const statement = prepareCached(m.sql);
      for (const params of m.rows) statement.run(bindable(params));
      return { t: "done", changes: m.rows.length, rows: [] };
    }
    case "prepare": {
      const statement = db.prepare(m.sql);
      const columns = statement.reader ? columnNames(statement) : [];
      queries.set(m.id, { statement, params: m.params, iterator: null, names: columns });
      return { t: "statement", reader: statement.reader, readonly: statement.readonly, columns };
    }
    case "more": {
      const query = queries.get(m.query);
      if (!query) throw new Error("the query is closed");
      const batch = nextBatch(query, m.size);
      if (batch.done) queries.delete(m.query);
      return { t: "rows", ...batch };
    }
    case "drop": {
      queries.get(m.query)?.iterator?.return();
      queries.delete(m.query);
      return { t: "done", changes: 0, rows: [] };
    }
    case "close": {
      for (const query of queries.values()) query.iterator?.return();
      db.close();
      return { t: "done", changes: 0, rows: [] };
    }
  }
  throw new Error(`unknown message ${m.t}`);
}

if (openError !== null) {
  process.send({ t: "error", id: 0, message: openError }, () => process.exit(1));
} else {
  process.on("message", serve);
  process.send({ t: "ready", id: 0 }, watchServer);
}

function serve(m) {
  let reply;
  try {
    reply = { ...handle(m), id: m.id };
  } catch (e) {
    if (m.t === "more") queries.delete(m.query);
    reply = { t: "error", id: m.id, message: e instanceof Error ? e.message : String(e) };
  }
  process.send(reply);
  if (m.t === "close") process.disconnect();
}
// the server went away (or closed this database): nothing more will be asked
process.on("disconnect", () => process.exit(0));
