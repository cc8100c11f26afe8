import { SluiceError } from "../../errors.js";
import { refuseSqliteFileStatements } from "../../connectors/types/sqlite.js";
import { driverErrorMessage, userSqlBindings, withNodeDatabase } from "../db/database.js";
import { defineNodeType } from "../node-type.js";
import { z } from "zod";
import { nonEmpty, loose } from "./config-parts.js";
import { sqlTables, tablesOf, texts } from "./references.js";

/**
 * Splits SQL text into statements at top-level `;`, respecting quotes ('…', "…", `…`), PostgreSQL dollar quotes
 * ($tag$…$tag$) and comments (-- … and /* … *\/).
 */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let current = "";
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    const two = sql.slice(i, i + 2);
    if (two === "--") {
      const end = sql.indexOf("\n", i);
      i = end === -1 ? sql.length : end;
      continue;
    }
    if (two === "/*") {
      const end = sql.indexOf("*/", i + 2);
      i = end === -1 ? sql.length : end + 2;
      continue;
    }
    if (ch === "'" || ch === '"' || ch === "`") {
      let j = i + 1;
      while (j < sql.length && !(sql[j] === ch && sql[j + 1] !== ch)) j += sql[j] === ch ? 2 : 1;
      current += sql.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    const dollar = /^\$[A-Za-z_]*\$/.exec(sql.slice(i));
    if (dollar) {
      const end = sql.indexOf(dollar[0], i + dollar[0].length);
      const stop = end === -1 ? sql.length : end + dollar[0].length;
      current += sql.slice(i, stop);
      i = stop;
      continue;
    }
    if (ch === ";") {
      if (current.trim()) out.push(current.trim());
      current = "";
    } else current += ch;
    i += 1;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

export const migrateConfig = loose({
  conn_id: nonEmpty("conn_id"),
  sql: z.union([nonEmpty("sql"), z.array(nonEmpty("sql")).min(1, "sql must not be empty")]),
});

/**
 * `migrate`: runs the DDL/DML statements of `sql` (several per string, or an array) in order — in one transaction on
 * PostgreSQL and SQLite (there in a worker process); on MySQL/MariaDB DDL commits implicitly, so a failure stops at the
 * failing statement.
 */
export const migrateNode = defineNodeType({
  type: "migrate",
  configSchema: migrateConfig,
  effects: true,
  references: (c) => ({ tablesWritten: tablesOf(c, sqlTables(texts(...[c.sql].flat()).join(";\n"), "written")) }),
  async run(ctx, config, inputs) {
    const conn = await ctx.connection(config.conn_id);
    const statements = (Array.isArray(config.sql) ? config.sql : [config.sql]).flatMap(splitStatements);
    if (statements.length === 0) throw new SluiceError("invalid", "migrate: sql holds no statements");
    if (conn.type === "sqlite") statements.forEach(refuseSqliteFileStatements);
    await withNodeDatabase(conn, ctx.signal, async (db) => {
      const runAll = async (exec: (sql: string, bindings: unknown[]) => Promise<unknown>) => {
        for (const [n, statement] of statements.entries()) {
          const bound = await ctx.renderSql(statement);
          try {
            await exec(bound.sql, bound.bindings);
          } catch (e) {
            if (e instanceof SluiceError) throw e;
            throw new SluiceError(
              "unprocessable",
              `statement ${n + 1} of ${statements.length} failed: ${driverErrorMessage(e, ctx)}`,
            );
          }
        }
      };
      if (db.dialect === "sqlite") {
        // in the database's worker process; bindings converted as knex's better-sqlite3 client does
        const sqlite = db.sqlite;
        const bindable = (b: unknown[]) =>
          b.map((v) => (v instanceof Date ? v.valueOf() : typeof v === "boolean" ? Number(v) : v));
        await sqlite.transaction(() => runAll((sql, b) => sqlite.run(sql.replace(/\\\?/g, "?"), bindable(b))));
      } else if (db.dialect === "mysql") await runAll((sql, b) => db.knex.raw(sql, userSqlBindings(db, b) as never[]));
      else await db.knex.transaction((trx) => runAll((sql, b) => trx.raw(sql, b as never[])));
    });
    return {
      output: inputs[0] ?? { columns: [], rows: [] },
      summary: `ran ${statements.length} statement(s) on ${conn.conn_id}`,
    };
  },
});
