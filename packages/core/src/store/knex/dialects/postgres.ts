import type { Knex } from "knex";
import type { Dialect } from "./dialect.js";

export const postgresDialect: Dialect = {
  name: "postgres",
  supportsSkipLocked: true,
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
