import fs from "node:fs";
import type { Knex } from "knex";
import type { Dialect } from "./dialect.js";

interface SqliteConnection {
  pragma(source: string): unknown;
}

export const sqliteDialect: Dialect = {
  name: "sqlite",
  supportsSkipLocked: false,
  supportsUpdateReturning: true,
  supportsWritableCte: false,
  arrayRows: false,
  // (the SQLite store claims through its own prepared statement: sqlite-hot-path.ts)
  claimedBy: (update, pick) => update.whereIn("id", pick).where({ status: "pending" }),
  knexConfig(filePath) {
    return {
      client: "better-sqlite3",
      connection: { filename: filePath },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        afterCreate(conn: SqliteConnection, done: (err: Error | null, conn: unknown) => void) {
          try {
            if (filePath !== ":memory:") {
              conn.pragma("journal_mode = WAL");
              // the store checkpoints in a worker thread (SqliteCheckpointer), never inside a commit on the event loop
              conn.pragma("wal_autocheckpoint = 0");
            }
            conn.pragma("synchronous = NORMAL");
            conn.pragma("busy_timeout = 5000");
            conn.pragma("foreign_keys = ON");
            done(null, conn);
          } catch (e) {
            done(e as Error, conn);
          }
        },
      },
    };
  },
  async sizeBytes(knex: Knex) {
    const filename = (knex.client.config.connection as { filename: string }).filename;
    if (filename === ":memory:") {
      const [pages] = (await knex.raw("PRAGMA page_count")) as { page_count: number }[];
      const [size] = (await knex.raw("PRAGMA page_size")) as { page_size: number }[];
      return (pages?.page_count ?? 0) * (size?.page_size ?? 0);
    }
    let total = 0;
    for (const file of [filename, `${filename}-wal`]) {
      try {
        total += fs.statSync(file).size;
      } catch {
        // the WAL file exists only while the database is open in WAL mode
      }
    }
    return total;
  },
};
