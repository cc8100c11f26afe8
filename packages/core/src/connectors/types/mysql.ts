import mysql from "mysql2/promise";
import { abortable, extraOptions, type Connector, type ConnectionFields } from "../connector.js";

/** mysql2 connection options from the stored fields (UTF-8 by default; `extra` options passed through). */
export function mysqlOptions(c: ConnectionFields): mysql.ConnectionOptions {
  return {
    host: c.host,
    port: c.port ?? 3306,
    user: c.login,
    password: c.password,
    database: c.schema || undefined,
    charset: "utf8mb4",
    connectTimeout: 5000,
    ...(c.extra as mysql.ConnectionOptions),
  };
}

export const mysqlConnector: Connector = {
  type: "mysql",
  label: "MySQL",
  fields: ["host", "port", "schema", "login", "password"],
  driver: "mysql2",
  uri(c) {
    const options = new Map<string, string>([["charset", "utf8mb4"], ...extraOptions(c.extra)]);
    const query = [...options].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&");
    return `${c.login}:${c.password}@tcp(${c.host}:${c.port ?? 3306})/${c.schema}?${query}`;
  },
  async test(c, signal) {
    const conn = await abortable(mysql.createConnection(mysqlOptions(c)), signal);
    try {
      await abortable(conn.ping(), signal);
      return `connected to MySQL at ${c.host}:${c.port ?? 3306}/${c.schema}`;
    } finally {
      conn.destroy();
    }
  },
};
