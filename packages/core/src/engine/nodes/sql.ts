import { refuseSqliteFileStatements } from "../../connectors/types/sqlite.js";
import { SluiceError } from "../../errors.js";
import { cell, type DataSet, type Row } from "../dataset.js";
import { withSqliteWorker, type SqliteQuery, type SqliteWorker } from "../db/sqlite-worker.js";
import { defineNodeType } from "../node-type.js";
import { z } from "zod";
import { jsonSizeUpTo } from "../json-size.js";
import { loose, nonEmpty, outputBounds, outputLimits } from "./config-parts.js";

type SqliteType = "INTEGER" | "REAL" | "TEXT" | "BLOB" | "";

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The declared column type from the values: INTEGER (ints, booleans), REAL, TEXT, BLOB; untyped when mixed. */
function columnType(rows: readonly Row[], column: string): SqliteType {
  const kinds = new Set<SqliteType>();
  for (const row of rows) {
    const v = cell(row, column);
    if (v === null || v === undefined) continue;
    if (typeof v === "boolean" || typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v)))
      kinds.add("INTEGER");
    else if (typeof v === "number") kinds.add("REAL");
    else if (v instanceof Uint8Array) kinds.add("BLOB");
    else kinds.add("TEXT");
  }
  if (kinds.size === 1) return [...kinds][0]!;
  if (kinds.size === 2 && kinds.has("INTEGER") && kinds.has("REAL")) return "REAL";
  return kinds.size === 0 ? "" : "TEXT";
}

/** A JS value as SQLite can bind it: booleans 0/1, dates ISO text, objects JSON text. */
function toSqlite(v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return Buffer.from(v);
  if (typeof v === "object") return JSON.stringify(v);
  return v;
}

/** Input rows cross to the worker process in batches of this many, each batch one message. */
const LOAD_BATCH = 2000;

async function loadTable(sqlite: SqliteWorker, table: string, data: DataSet): Promise<void> {
  const columns = [...new Set([...data.columns, ...data.rows.flatMap((r) => Object.keys(r))])];
  if (columns.length === 0) {
    await sqlite.run(`CREATE TABLE ${quoteIdent(table)} (_empty INTEGER)`);
    return;
  }
  const defs = columns.map((c) => `${quoteIdent(c)} ${columnType(data.rows, c)}`.trim());
  await sqlite.run(`CREATE TABLE ${quoteIdent(table)} (${defs.join(", ")})`);
  const insert = `INSERT INTO ${quoteIdent(table)} (${columns.map(quoteIdent).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`;
  await sqlite.transaction(async () => {
    for (let i = 0; i < data.rows.length; i += LOAD_BATCH) {
      await sqlite.runMany(
        insert,
        data.rows.slice(i, i + LOAD_BATCH).map((row) => columns.map((c) => toSqlite(cell(row, c)))),
      );
    }
  });
}

/** The first keyword of a statement, past leading blanks and comments. */
const firstKeyword = (sql: string) =>
  /^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?(?:\*\/|$))*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase() ?? "";

/**
 * The `sql` node only reads: a statement runs when SQLite reports it returns rows and writes nothing
 * (`sqlite3_stmt_readonly`). That refuses INSERT/UPDATE/DELETE/DDL (and `… RETURNING`), ATTACH/DETACH, VACUUM
 * (INTO), BEGIN/SAVEPOINT; PRAGMA statements are refused whole, since some that change settings still report rows
 * (`journal_mode = …`) — the read-only ones exist as table-valued functions (`SELECT * FROM pragma_table_info('t')`).
 */
function refuseUnlessReadOnly(query: SqliteQuery, sql: string): void {
  const keyword = firstKeyword(sql);
  if (query.reader && query.readonly && keyword !== "PRAGMA") return;
  const hint = keyword === "PRAGMA" ? "; read a pragma with SELECT * FROM pragma_<name>(…)" : "";
  throw new SluiceError(
    "invalid",
    `sql: only read-only queries run here (SELECT, WITH … SELECT, VALUES); ${keyword || "this statement"} is refused${hint}`,
  );
}

export const sqlConfig = loose({
  sql: nonEmpty("sql").optional(),
  query: z.string().optional(),
  ...outputBounds,
}).refine((c) => Boolean(c.sql) || Boolean(c.query), "sql is required");

/**
 * `sql`: runs one read-only query over the inputs in a fresh in-memory SQLite database held by a worker process.
 * Each input is a table named after its upstream node id; a single input is also the table `input`. `${param.*}`
 * values are bound, never spliced.
 */
export const sqlNode = defineNodeType({
  type: "sql",
  configSchema: sqlConfig,
  async run(ctx, config, inputs) {
    const bound = await ctx.renderSql((config.sql ?? config.query)!);
    refuseSqliteFileStatements(bound.sql);
    // renderSql escapes literal `?` as `\?` (knex convention); SQLite takes them literally inside strings
    const sql = bound.sql.replaceAll("\\?", "?");
    // the whole database lives in a worker process: loading the inputs and the user's query stay off the event loop
    return withSqliteWorker(":memory:", ctx.signal, async (sqlite) => {
      try {
        for (const [i, data] of inputs.entries()) {
          const id = ctx.inputIds[i] ?? `input_${i + 1}`;
          await loadTable(sqlite, id, data);
          if (inputs.length === 1 && id !== "input")
            await sqlite.run(`CREATE VIEW input AS SELECT * FROM ${quoteIdent(id)}`);
        }
        // a second lock: should a statement ever pass the check below, it still cannot write
        await sqlite.run("PRAGMA query_only = ON");
        const query = await sqlite.prepare(sql, bound.bindings.map(toSqlite));
        refuseUnlessReadOnly(query, sql);
        // a join in the query multiplies rows as the join node does, and a row can be large: counted as they come,
        // stopped past either bound (the server's memory holds every run's outputs)
        const limits = outputLimits(config);
        const rows: Row[] = [];
        let chars = 0;
        for await (const batch of query.batches(5000)) {
          if (rows.length + batch.length > limits.rows)
            throw new SluiceError("invalid", `sql: the query returned more than max_output_rows (${limits.rows}) rows`);
          chars += jsonSizeUpTo(batch, limits.chars);
          if (chars > limits.chars) {
            const mb = limits.chars / 1e6;
            throw new SluiceError("invalid", `sql: the query returned more than max_output_mb (${mb} MB) of data`);
          }
          for (const row of batch) rows.push(row);
        }
        return { output: { columns: query.columns, rows }, summary: `query returned ${rows.length} rows` };
      } catch (e) {
        if (e instanceof SluiceError) throw e;
        throw new SluiceError("invalid", `sql failed: ${(e as Error).message}`);
      }
    });
  },
});
