import type { ConnectionType, ConnectionTypeInfo } from "../model/connection.js";
import type { Connector } from "./connector.js";
import { genericConnector } from "./types/generic.js";
import { httpConnector } from "./types/http.js";
import { mysqlConnector } from "./types/mysql.js";
import { postgresConnector } from "./types/postgres.js";
import { s3Connector } from "./types/s3.js";
import { sftpConnector } from "./types/sftp.js";
import { sqliteConnector } from "./types/sqlite.js";

/** The seven connection types, in the order of SPEC part 2. */
export const CONNECTORS: Readonly<Record<ConnectionType, Connector>> = {
  postgres: postgresConnector,
  mysql: mysqlConnector,
  sqlite: sqliteConnector,
  http: httpConnector,
  sftp: sftpConnector,
  s3: s3Connector,
  generic: genericConnector,
};

export const CONNECTION_TYPE_INFO: readonly ConnectionTypeInfo[] = Object.values(CONNECTORS).map((c) => ({
  type: c.type,
  label: c.label,
  fields: [...c.fields],
}));
