import type { ConnectionType, ConnectionTypeInfo } from "../model/connection.js";
import type { ConnectionFields, Connector } from "./connector.js";
import type { ResolvedConnection } from "./resolver.js";
import type { FileAccess } from "../file-access.js";
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

/** The connection as it may be used on this machine: file paths confined (see `Connector.confineFiles`). */
export async function confineConnection(conn: ConnectionFields, access: FileAccess): Promise<ResolvedConnection> {
  const connector = CONNECTORS[conn.type];
  const fields = connector.confineFiles ? await connector.confineFiles(conn, access) : conn;
  return { ...fields, uri: connector.uri(fields) };
}
