import type { PoolClient } from "pg";
import type { Knex } from "knex";
import { SluiceError } from "../../errors.js";
import { driverErrorMessage, sqliteSql, withNodeDatabase, type DbDialect, type NodeDatabase } from "../db/database.js";
import { cell, type DataSet, type Row } from "../dataset.js";
import { defineNodeType } from "../node-type.js";
import { z } from "zod";
import { nonEmpty, loose } from "./config-parts.js";
import { tablesOf, texts } from "./references.js";

const MAX_BINDINGS = 60_000;
/** SQLite caps a compound SELECT (knex's multi-row insert there) at 500 terms. */
const SQLITE_MAX_ROWS = 500;
const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Values the drivers can bind: objects and arrays as JSON text. */
const dbValue = (v: unknown) =>
  v === undefined
    ? null
    : v !== null && typeof v === "object" && !(v instanceof Date) && !Buffer.isBuffer(v)
      ? JSON.stringify(v)
      : v;

type ColumnKind = "integer" | "float" | "boolean" | "text";

/** The narrowest column type that holds every non-null value of the column. */
function columnKind(rows: readonly Row[], column: string): ColumnKind {
  let kind: ColumnKind | null = null;
  for (const row of rows) {
    const v = cell(row, column);
    if (v === null || v === undefined) continue;
    const k: ColumnKind =
      typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v))
        ? "integer"
        : typeof v === "number"
          ? "float"
          : typeof v === "boolean"
            ? "boolean"
            : "text";
    if (kind === null || kind === k) kind = k;
    else if ((kind === "integer" && k === "float") || (kind === "float" && k === "integer")) kind = "float";
    else return "text";
  }
  return kind ?? "text";
}

/** Creates the table from the data's columns, typed from all their values; key columns get a unique key. */
function createTable(knex: Knex, table: string, data: DataSet, keys: string[], dialect: DbDialect): Knex.SchemaBuilder {
  return knex.schema.createTable(table, (t) => {
    for (const column of data.columns) {
      const isKey = keys.includes(column);
      const kind = columnKind(data.rows, column);
      if (kind === "integer") t.bigInteger(column);
      else if (kind === "float") t.double(column);
      else if (kind === "boolean") t.boolean(column);
      else if (isKey || dialect === "mysql") t.string(column, isKey ? 255 : 1024).nullable();
      else t.text(column);
    }
    if (keys.length) t.unique(keys);
  });
}

const quoteIdent = (name: string) =>
  name
    .split(".")
    .map((part) => `"${part.replace(/"/g, '""')}"`)
    .join(".");

/** A multi-row INSERT (with ON CONFLICT … DO UPDATE for upserts) in PostgreSQL/SQLite syntax. */
function insertSql(
  dialect: "postgres" | "sqlite",
  table: string,
  columns: string[],
  rowCount: number,
  keys: string[] | null,
): string {
  let n = 0;
  const placeholder = () => (dialect === "postgres" ? `$${++n}` : "?");
  const tuples = Array.from({ length: rowCount }, () => `(${columns.map(placeholder).join(",")})`).join(",");
  let sql = `insert into ${quoteIdent(table)} (${columns.map(quoteIdent).join(",")}) values ${tuples}`;
  if (keys) {
    const rest = columns.filter((c) => !keys.includes(c));
    sql +=
      ` on conflict (${keys.map(quoteIdent).join(",")}) ` +
      (rest.length
        ? `do update set ${rest.map((c) => `${quoteIdent(c)} = excluded.${quoteIdent(c)}`).join(",")}`
        : "do nothing");
  }
  return sql;
}

const rowValues = (rows: readonly Row[], columns: string[], dialect: "postgres" | "sqlite") =>
  rows.flatMap((r) =>
    columns.map((c) => {
      const v = dbValue(cell(r, c));
      return dialect === "sqlite" && typeof v === "boolean" ? (v ? 1 : 0) : v;
    }),
  );

/** Whether `table` exists; on SQLite the knex-compiled check runs in the database's worker. */
async function hasTable(db: NodeDatabase, table: string): Promise<boolean> {
  if (db.dialect !== "sqlite") return db.knex.schema.hasTable(table);
  // knex types hasTable as a promise only; its builder compiles like any schema builder
  const check = (sqliteSql().schema.hasTable(table) as unknown as Knex.SchemaBuilder).toSQL()[0]!;
  return (await db.sqlite.run(check.sql, [...check.bindings])).rows.length > 0;
}

async function createTableIn(db: NodeDatabase, table: string, data: DataSet, keys: string[]): Promise<void> {
  if (db.dialect !== "sqlite") {
    await createTable(db.knex, table, data, keys, db.dialect);
    return;
  }
  for (const statement of createTable(sqliteSql(), table, data, keys, db.dialect).toSQL()) {
    await db.sqlite.run(statement.sql, [...statement.bindings]);
  }
}

/**
 * Writes with the driver directly (knex builds large multi-row inserts slowly): prepared multi-row INSERTs inside
 * one transaction on the node's single connection (on SQLite, in the database's worker process).
 */
async function writeDirect(
  db: Exclude<NodeDatabase, { dialect: "mysql" }>,
  table: string,
  data: DataSet,
  keys: string[] | null,
  perBatch: number,
  signal: AbortSignal,
): Promise<number> {
  if (db.dialect === "sqlite") {
    const sqlite = db.sqlite;
    await sqlite.transaction(async () => {
      for (let i = 0; i < data.rows.length; i += perBatch) {
        const chunk = data.rows.slice(i, i + perBatch);
        await sqlite.run(
          insertSql("sqlite", table, data.columns, chunk.length, keys),
          rowValues(chunk, data.columns, "sqlite"),
        );
      }
    });
    return data.rows.length;
  }
  const client = (await db.knex.client.acquireConnection()) as PoolClient;
  try {
    await client.query("begin");
    try {
      for (let i = 0; i < data.rows.length; i += perBatch) {
        if (signal.aborted) throw new SluiceError("unprocessable", "the write was cancelled");
        const chunk = data.rows.slice(i, i + perBatch);
        await client.query({
          text: insertSql("postgres", table, data.columns, chunk.length, keys),
          values: rowValues(chunk, data.columns, "postgres"),
        });
      }
      await client.query("commit");
    } catch (e) {
      await client.query("rollback").catch(() => undefined);
      throw e;
    }
    return data.rows.length;
  } finally {
    await db.knex.client.releaseConnection(client);
  }
}

export const sinkDbConfig = loose({
  conn_id: nonEmpty("conn_id"),
  table: nonEmpty("table"),
  mode: z.enum(["insert", "upsert"], { error: "mode must be insert or upsert" }).optional(),
  conflict_key: z.union([nonEmpty("conflict_key"), z.array(nonEmpty("conflict_key")).min(1)]).optional(),
  batch_size: z.number().int().min(1).max(100_000).optional(),
}).refine((c) => c.mode !== "upsert" || Boolean(c.conflict_key), "conflict_key is required with mode upsert");

/**
 * `sink_db`: writes its input into `table` — `insert`, or `upsert` on `conflict_key` (one column or several) with each
 * dialect's native upsert (ON CONFLICT … DO UPDATE, ON DUPLICATE KEY UPDATE). Creates the table when missing (with a
 * unique key on conflict_key). All batches go in one transaction: a failure writes nothing. Passes its input on.
 */
export const sinkDbNode = defineNodeType({
  type: "sink_db",
  configSchema: sinkDbConfig,
  effects: true,
  references: (c) => ({ tablesWritten: tablesOf(c, texts(c.table)) }),
  async run(ctx, config, inputs) {
    const data = inputs[0] ?? { columns: [], rows: [] };
    const conn = await ctx.connection(config.conn_id);
    const table = await ctx.render(config.table);
    const mode = config.mode ?? "insert";
    const keys = list(config.conflict_key);
    const missingKeys = keys.filter((k) => !data.columns.includes(k));
    if (mode === "upsert" && missingKeys.length && data.rows.length) {
      throw new SluiceError("invalid", `conflict_key column(s) ${missingKeys.join(", ")} are not in the input`);
    }
    const written = await withNodeDatabase(conn, ctx.signal, async (db) => {
      if (!(await hasTable(db, table))) {
        if (data.columns.length === 0) return 0;
        await createTableIn(db, table, data, mode === "upsert" ? keys : []);
        ctx.log("info", `created table ${table}`);
      }
      if (data.rows.length === 0) return 0;
      const cap = db.dialect === "sqlite" ? SQLITE_MAX_ROWS : Number.POSITIVE_INFINITY;
      const perBatch = Math.max(
        1,
        Math.min(config.batch_size ?? 1000, cap, Math.floor(MAX_BINDINGS / Math.max(1, data.columns.length))),
      );
      let count = 0;
      const write = async () => {
        if (db.dialect === "mysql") {
          await db.knex.transaction(async (trx) => {
            for (let i = 0; i < data.rows.length; i += perBatch) {
              if (ctx.signal.aborted) throw new SluiceError("unprocessable", "the write was cancelled");
              const batch = data.rows
                .slice(i, i + perBatch)
                .map((r: Row) => Object.fromEntries(data.columns.map((c) => [c, dbValue(cell(r, c))])));
              const insert = trx(table).insert(batch);
              if (mode === "upsert") await insert.onConflict(keys).merge();
              else await insert;
              count += batch.length;
            }
          });
        } else {
          count = await writeDirect(db, table, data, mode === "upsert" ? keys : null, perBatch, ctx.signal);
        }
      };
      await write().catch((e: unknown) => {
        throw e instanceof SluiceError
          ? e
          : new SluiceError(
              "unprocessable",
              `writing to ${table} failed (nothing was written): ${driverErrorMessage(e, ctx)}`,
            );
      });
      return count;
    });
    return {
      output: data,
      rowCount: written,
      summary: `${mode === "upsert" ? "upserted" : "inserted"} ${written} rows into ${table} on ${conn.conn_id}`,
    };
  },
});
