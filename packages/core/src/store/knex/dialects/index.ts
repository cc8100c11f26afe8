import type { DialectName } from "../../ports.js";
import type { Dialect } from "./dialect.js";
import { mysqlDialect } from "./mysql.js";
import { postgresDialect } from "./postgres.js";
import { sqliteDialect } from "./sqlite.js";

export type { Dialect } from "./dialect.js";

export const DIALECTS: Readonly<Record<DialectName, Dialect>> = {
  sqlite: sqliteDialect,
  postgres: postgresDialect,
  mysql: mysqlDialect,
};
