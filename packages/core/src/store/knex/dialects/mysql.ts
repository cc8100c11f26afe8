import type { Knex } from "knex";
import type { Dialect } from "./dialect.js";

export const mysqlDialect: Dialect = {
  name: "mysql",
  supportsSkipLocked: true,
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
      pool: { min: 0, max: 10 },
    };
  },
  async sizeBytes(knex: Knex) {
    const [rows] = (await knex.raw(
      "select coalesce(sum(data_length + index_length), 0) as size from information_schema.tables where table_schema = database()",
    )) as [{ size: string | number }[]];
    return Number(rows[0]?.size ?? 0);
  },
};
