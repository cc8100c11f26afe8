import knexFactory, { type Knex } from "knex";
import mysql from "mysql2/promise";
import pg from "pg";
import type { ResolvedConnection } from "../../connectors/resolver.js";
import { keepBackslashEscapes, mysqlOptions, mysqlTextLiteral } from "../../connectors/types/mysql.js";
import { pgClientConfig } from "../../connectors/types/postgres.js";
import { SluiceError } from "../../errors.js";
import type { Row } from "../dataset.js";
import type { NodeContext } from "../node-type.js";
import { cancelledError, SqliteWorker } from "./sqlite-worker.js";

export type DbDialect = "postgres" | "mysql" | "sqlite";

interface NodeDatabaseBase {
  /** Cancels the running statement: pg_cancel_backend / KILL QUERY, or kills the SQLite worker process. */
  cancel(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A database a node works on. PostgreSQL/MySQL: a one-connection knex (so a running statement can be found and
 * cancelled). SQLite: a worker process holding the database, since better-sqlite3 is synchronous and user SQL must
 * not run on the server's event loop.
 */
export type NodeDatabase =
  | (NodeDatabaseBase & { dialect: "postgres"; knex: Knex; lost: AbortSignal })
  | (NodeDatabaseBase & { dialect: "mysql"; knex: Knex; lost: AbortSignal })
  | (NodeDatabaseBase & { dialect: "sqlite"; sqlite: SqliteWorker });

let sqliteBuilder: Knex | undefined;
/** A knex that only compiles SQLite SQL (schema statements); it never opens a database. */
export function sqliteSql(): Knex {
  sqliteBuilder ??= knexFactory({ client: "better-sqlite3", useNullAsDefault: true });
  return sqliteBuilder;
}

export function dbDialect(conn: ResolvedConnection): DbDialect {
  if (conn.type === "postgres" || conn.type === "mysql" || conn.type === "sqlite") return conn.type;
  throw new SluiceError(
    "invalid",
    `connection '${conn.conn_id}' is of type ${conn.type}; a database node needs postgres, mysql or sqlite`,
  );
}

const PG_INT8_OID = 20;

/**
 * PostgreSQL `bigint` (and `count(*)`) arrives as a string from pg, which would turn ids into text columns
 * downstream. Values that fit a JS number exactly become numbers; larger ones stay strings so no digit is lost.
 * `numeric` stays a string (it is exact decimal).
 */
const pgTypes = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === PG_INT8_OID && format !== "binary") {
      return (value: string) => {
        const n = Number(value);
        return Number.isSafeInteger(n) ? n : value;
      };
    }
    return pg.types.getTypeParser(oid, format);
  },
};

/** Opens the connection's database with one pooled connection. The caller closes it. */
export async function openNodeDatabase(conn: ResolvedConnection): Promise<NodeDatabase> {
  const dialect = dbDialect(conn);
  if (dialect === "sqlite") {
    const sqlite = await SqliteWorker.open(conn.host);
    return { dialect, sqlite, cancel: async () => sqlite.stop(cancelledError()), close: () => sqlite.close() };
  }
  // aborted when the connection errors or ends under us (server restart, network loss): knex's row stream is never
  // told, and would wait for ever
  const lost = new AbortController();
  const pool = {
    min: 1,
    max: 1,
    afterCreate(connection: NodeJS.EventEmitter, done: (err: Error | null, connection: unknown) => void) {
      connection.on("error", (e: Error) => lost.abort(e));
      connection.on("end", () => lost.abort(new Error("the connection to the database was lost")));
      if (dialect !== "mysql") return done(null, connection);
      keepBackslashEscapes(connection as unknown as Parameters<typeof keepBackslashEscapes>[0], (e) =>
        done(e, connection),
      );
    },
  };
  const knex =
    dialect === "postgres"
      ? knexFactory({
          client: "pg",
          connection: { ...pgClientConfig(conn), types: pgTypes } as Knex.PgConnectionConfig,
          pool,
        })
      : knexFactory({ client: "mysql2", connection: mysqlOptions(conn) as Knex.MySqlConnectionConfig, pool });
  // the session id of the single pooled connection, to cancel its running statement from a second connection
  const idRows = await knex.raw(
    dialect === "postgres" ? "select pg_backend_pid() as id" : "select connection_id() as id",
  );
  const first = (dialect === "postgres" ? (idRows as { rows: Row[] }).rows : (idRows as Row[][])[0])?.[0];
  const sessionId = Number(first?.id);
  return {
    dialect,
    knex,
    lost: lost.signal,
    async cancel() {
      if (!Number.isFinite(sessionId)) return;
      if (dialect === "postgres") {
        const client = new pg.Client(pgClientConfig(conn));
        await client.connect();
        await client.query("select pg_cancel_backend($1)", [sessionId]).finally(() => client.end());
      } else {
        const c = await mysql.createConnection(mysqlOptions(conn));
        await c.query(`KILL QUERY ${sessionId}`).finally(() => c.destroy());
      }
    },
    close: () => knex.destroy(),
  };
}

/** Runs `work` with the database open; an abort of `signal` cancels the running statement. Always closes. */
export async function withNodeDatabase<T>(
  conn: ResolvedConnection,
  signal: AbortSignal,
  work: (db: NodeDatabase) => Promise<T>,
): Promise<T> {
  const db = await openNodeDatabase(conn);
  const onAbort = () => void db.cancel().catch(() => undefined);
  signal.addEventListener("abort", onAbort, { once: true });
  if (signal.aborted) onAbort();
  try {
    const result = await work(db);
    if (signal.aborted) throw cancelledError();
    return result;
  } finally {
    signal.removeEventListener("abort", onAbort);
    await db.close().catch(() => undefined);
  }
}

/**
 * The bindings of user SQL (`${param.*}`, `${var.*}`) as the database's driver is given them. On MySQL/MariaDB text is
 * sent as a hexadecimal literal: mysql2 quotes values on the client with backslash escapes, which a statement of the
 * user's own (`SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES'`) would turn into a way out of the string.
 */
export function userSqlBindings(db: NodeDatabase, bindings: unknown[]): unknown[] {
  if (db.dialect !== "mysql") return bindings;
  return bindings.map((v) => (typeof v === "string" ? db.knex.raw(mysqlTextLiteral(v)) : v));
}

/** Streams the rows of a query in batches (pg-query-stream, mysql2 streams, better-sqlite3 iterate in the worker). */
export async function* streamRows(
  db: NodeDatabase,
  sql: string,
  bindings: unknown[],
  signal: AbortSignal,
  batchSize = 5000,
): AsyncGenerator<Row[]> {
  if (db.dialect === "sqlite") {
    // renderSql escapes literal `?` as `\?` (knex convention); better-sqlite3 takes the SQL as is
    const query = await db.sqlite.prepare(sql.replace(/\\\?/g, "?"), bindings);
    if (!query.reader) {
      await query.drop();
      throw new SluiceError("invalid", "the query returns no rows (use a migrate node for statements)");
    }
    yield* query.batches(batchSize);
    return;
  }
  let batch: Row[] = [];
  // pg-query-stream fetches 100 rows per round trip by default; ask for whole batches
  const stream = db.knex
    .raw(sql, userSqlBindings(db, bindings) as Knex.RawBinding[])
    .stream({ batchSize, highWaterMark: batchSize });
  const closed = new Promise((resolve) => stream.once("close", resolve));
  const onAbort = () => stream.destroy(new SluiceError("unprocessable", "the query was cancelled"));
  const onLost = () => stream.destroy(db.lost.reason as Error);
  signal.addEventListener("abort", onAbort, { once: true });
  db.lost.addEventListener("abort", onLost, { once: true });
  if (db.lost.aborted) onLost();
  try {
    for await (const row of stream as AsyncIterable<Row>) {
      batch.push(row);
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    db.lost.removeEventListener("abort", onLost);
    // knex releases the stream's connection on its 'close' event, which after an error comes a tick later: until
    // then the pool must stay (closed first, that release threw, uncaught, ending the process — seen with mysql2)
    await closed;
  }
  if (batch.length) yield batch;
}

/**
 * A driver error as a short message: knex prefixes the full SQL (with every inlined value) to the driver's message;
 * that text can be huge and can carry row data, so it is dropped, and the rest masked and capped (`excerpt`).
 */
export function driverErrorMessage(e: unknown, ctx: Pick<NodeContext, "excerpt">): string {
  const message = e instanceof Error ? e.message : String(e);
  const withoutSql =
    /^\s*(insert|select|update|delete|create|alter|drop|with|merge|replace)\b/i.test(message) && message.includes(" - ")
      ? message.slice(message.lastIndexOf(" - ") + 3)
      : message;
  return ctx.excerpt(withoutSql, 500);
}
