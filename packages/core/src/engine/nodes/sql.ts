import Database from "better-sqlite3";
import { SluiceError } from "../../errors.js";
import type { DataSet, Row } from "../dataset.js";
import { defineNodeType } from "../node-type.js";
import { sqlConfig } from "./config-schemas.js";

type SqliteType = "INTEGER" | "REAL" | "TEXT" | "BLOB" | "";

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The declared column type from the values: INTEGER (ints, booleans), REAL, TEXT, BLOB; untyped when mixed. */
function columnType(rows: readonly Row[], column: string): SqliteType {
  const kinds = new Set<SqliteType>();
  for (const row of rows) {
    const v = row[column];
    if (v === null || v === undefined) continue;
    if (typeof v === "boolean" || typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v))) kinds.add("INTEGER");
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

function loadTable(db: Database.Database, table: string, data: DataSet): void {
  const columns = [...new Set([...data.columns, ...data.rows.flatMap((r) => Object.keys(r))])];
  if (columns.length === 0) {
    db.exec(`CREATE TABLE ${quoteIdent(table)} (_empty INTEGER)`);
    return;
  }
  const defs = columns.map((c) => `${quoteIdent(c)} ${columnType(data.rows, c)}`.trim());
  db.exec(`CREATE TABLE ${quoteIdent(table)} (${defs.join(", ")})`);
  const insert = db.prepare(
    `INSERT INTO ${quoteIdent(table)} (${columns.map(quoteIdent).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
  );
  db.transaction((rows: readonly Row[]) => {
    for (const row of rows) insert.run(...columns.map((c) => toSqlite(row[c])));
  })(data.rows);
}

/**
 * `sql`: runs one query over the inputs in a fresh in-memory SQLite database. Each input is a table named after
 * its upstream node id; a single input is also the table `input`. `${param.*}` values are bound, never spliced.
 */
export const sqlNode = defineNodeType({
  type: "sql",
  configSchema: sqlConfig,
  async run(ctx, config, inputs) {
    const bound = await ctx.renderSql((config.sql ?? config.query)!);
    const db = new Database(":memory:");
    try {
      inputs.forEach((data, i) => {
        const id = ctx.inputIds[i] ?? `input_${i + 1}`;
        loadTable(db, id, data);
        if (inputs.length === 1 && id !== "input") db.exec(`CREATE VIEW input AS SELECT * FROM ${quoteIdent(id)}`);
      });
      // renderSql escapes literal `?` as `\?` (knex convention); SQLite takes them literally inside strings
      const stmt = db.prepare(bound.sql.replaceAll("\\?", "?"));
      if (!stmt.reader) {
        const info = stmt.run(...bound.bindings.map(toSqlite));
        ctx.log("info", `statement changed ${info.changes} rows`);
        return { output: { columns: [], rows: [] } };
      }
      const columns = stmt.columns().map((c) => c.name);
      const rows = stmt.all(...bound.bindings.map(toSqlite)) as Row[];
      ctx.log("info", `query returned ${rows.length} rows`);
      return { output: { columns, rows } };
    } catch (e) {
      if (e instanceof SluiceError) throw e;
      throw new SluiceError("invalid", `sql failed: ${(e as Error).message}`);
    } finally {
      db.close();
    }
  },
});
