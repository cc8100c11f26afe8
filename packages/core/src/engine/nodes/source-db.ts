import { SluiceError } from "../../errors.js";
import { refuseSqliteFileStatements } from "../../connectors/types/sqlite.js";
import { driverErrorMessage, streamRows, withNodeDatabase } from "../db/database.js";
import type { Row } from "../dataset.js";
import { defineNodeType } from "../node-type.js";
import { z } from "zod";
import { nonEmpty, loose } from "./config-parts.js";
import { sqlTables, tablesOf, text, texts } from "./references.js";

export const sourceDbConfig = loose({
  conn_id: nonEmpty("conn_id"),
  query: nonEmpty("query"),
  batch_size: z.number().int().min(1).max(1_000_000).optional(),
});

/**
 * `source_db`: runs `query` on a postgres, mysql or sqlite connection and streams the rows from the driver in
 * batches. `${param.*}`/`${var.*}` in the query are bound as parameters, never spliced into the SQL.
 */
export const sourceDbNode = defineNodeType({
  type: "source_db",
  configSchema: sourceDbConfig,
  references: (c) => ({ tablesRead: tablesOf(c, [...sqlTables(text(c.query) ?? "", "read"), ...texts(c.table)]) }),
  async run(ctx, config) {
    const conn = await ctx.connection(config.conn_id);
    const { sql, bindings } = await ctx.renderSql(config.query);
    if (conn.type === "sqlite") refuseSqliteFileStatements(sql);
    return withNodeDatabase(conn, ctx.signal, async (db) => {
      const rows: Row[] = [];
      let columns: string[] | null = null;
      try {
        for await (const batch of streamRows(db, sql, bindings, ctx.signal, config.batch_size ?? 5000)) {
          columns ??= batch[0] ? Object.keys(batch[0]) : null;
          for (const row of batch) rows.push(row);
        }
      } catch (e) {
        throw e instanceof SluiceError
          ? e
          : new SluiceError("unprocessable", `query on ${conn.conn_id} failed: ${driverErrorMessage(e, ctx)}`);
      }
      return {
        output: { columns: columns ?? [], rows },
        summary: `read ${rows.length} rows from ${conn.conn_id} (${db.dialect})`,
      };
    });
  },
});
