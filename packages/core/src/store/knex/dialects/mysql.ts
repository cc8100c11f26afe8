import type { Knex } from "knex";
import { keepBackslashEscapes } from "../../../connectors/types/mysql.js";
import type { Dialect } from "./dialect.js";

/** GET_LOCK names are server-wide: the database's name keeps two Sluice databases on one server apart. */
const MIGRATION_LOCK_NAME = "concat('sluice_migrations:', database())";

export const mysqlDialect: Dialect = {
  name: "mysql",
  supportsSkipLocked: true,
  supportsUpdateReturning: false,
  supportsWritableCte: false,
  arrayRows: false,
  migrationMutex: {
    async tryLock(knex, conn) {
      const [rows] = (await knex.raw(`select get_lock(${MIGRATION_LOCK_NAME}, 0) as ok`).connection(conn)) as [
        { ok: number | null }[],
      ];
      return Number(rows[0]?.ok) === 1;
    },
    async unlock(knex, conn) {
      await knex.raw(`select release_lock(${MIGRATION_LOCK_NAME})`).connection(conn);
    },
  },
  knexConfig(url) {
    const parsed = new URL(url);
    return {
      client: "mysql2",
      connection: {
        host: parsed.hostname,
        port: parsed.port ? Number(parsed.port) : 3306,
        user: decodeURIComponent(parsed.username),
        password: decodeURIComponent(parsed.password),
        database: decodeURIComponent(parsed.pathname.replace(/^\//, "")),
        charset: "utf8mb4",
        timezone: "Z",
        supportBigNumbers: true,
        connectTimeout: 10_000,
      },
      pool: {
        min: 0,
        max: 10,
        afterCreate: (
          connection: Parameters<typeof keepBackslashEscapes>[0],
          done: (e: Error | null, c: unknown) => void,
        ) => keepBackslashEscapes(connection, (e) => done(e, connection)),
      },
    };
  },
  async sizeBytes(knex: Knex) {
    const [rows] = (await knex.raw(
      "select coalesce(sum(data_length + index_length), 0) as size from information_schema.tables where table_schema = database()",
    )) as [{ size: string | number }[]];
    return Number(rows[0]?.size ?? 0);
  },
};
