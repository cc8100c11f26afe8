import type { Knex } from "knex";
import type { Dialect } from "./dialect.js";

/** The advisory-lock key migrating processes share (advisory locks are per database). */
const MIGRATION_LOCK_KEY = "8317151707346042880"; // the bytes of "sluice", as a 64-bit number

export const postgresDialect: Dialect = {
  name: "postgres",
  supportsSkipLocked: true,
  supportsUpdateReturning: true,
  migrationMutex: {
    async tryLock(knex, conn) {
      const result = (await knex.raw(`select pg_try_advisory_lock(${MIGRATION_LOCK_KEY}) as ok`).connection(conn)) as {
        rows: { ok: boolean }[];
      };
      return result.rows[0]?.ok === true;
    },
    async unlock(knex, conn) {
      await knex.raw(`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`).connection(conn);
    },
  },
  knexConfig(url) {
    return { client: "pg", connection: { connectionString: url }, pool: { min: 0, max: 10 } };
  },
  async sizeBytes(knex: Knex) {
    const result = (await knex.raw("select pg_database_size(current_database()) as size")) as {
      rows: { size: string }[];
    };
    return Number(result.rows[0]?.size ?? 0);
  },
};
