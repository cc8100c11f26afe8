import mysql from "mysql2/promise";
import { systemDnsResolver, type DnsResolver } from "../../engine/http/address-guard.js";
import { connectGuarded } from "../../engine/http/guarded-socket.js";
import { abortable, extraOptions, type Connector, type ConnectionFields } from "../connector.js";

/**
 * mysql2 connection options from the stored fields (UTF-8 by default; `extra` options passed through). The socket
 * is always the guarded one (docs/security.md), whatever `extra` says, so no option reaches a metadata address or a
 * unix socket.
 */
export function mysqlOptions(c: ConnectionFields, resolver: DnsResolver = systemDnsResolver): mysql.ConnectionOptions {
  const options: mysql.ConnectionOptions = {
    host: c.host,
    port: c.port ?? 3306,
    user: c.login,
    password: c.password,
    database: c.schema || undefined,
    charset: "utf8mb4",
    connectTimeout: 5000,
    ...(c.extra as mysql.ConnectionOptions),
    // mysql2 would print every packet, queries with their values, to the server's own output
    debug: false,
  };
  return { ...options, stream: () => connectGuarded(options.host ?? "localhost", options.port ?? 3306, resolver) };
}

/**
 * Run on every MySQL/MariaDB connection Sluice opens (its store and the nodes'): takes `NO_BACKSLASH_ESCAPES` out of
 * the session's `sql_mode`. mysql2 quotes the values it is given on the client, escaping a quote with a backslash;
 * in that mode a backslash is an ordinary character, and a value ending in `\'` would end its string early:
 * injection through data, on a server whose administrator set the mode globally.
 */
export const KEEP_BACKSLASH_ESCAPES =
  "SET SESSION sql_mode = TRIM(BOTH ',' FROM " +
  "REPLACE(CONCAT(',', @@SESSION.sql_mode, ','), ',NO_BACKSLASH_ESCAPES,', ','))";

/** A knex `pool.afterCreate` step for mysql2 connections: {@link KEEP_BACKSLASH_ESCAPES}, then `next`. */
export function keepBackslashEscapes(
  connection: { query(sql: string, callback: (err: Error | null) => void): unknown },
  next: (err: Error | null) => void,
): void {
  connection.query(KEEP_BACKSLASH_ESCAPES, (err) => next(err));
}

/**
 * A string bound into user SQL on MySQL/MariaDB, written so that it means the same whatever `sql_mode` the user's own
 * statements set in their session: without a backslash, a quoted literal with its quotes doubled (read alike with and
 * without `NO_BACKSLASH_ESCAPES`, and of the connection's collation, as any literal); with one, or with a `?` (the
 * driver would take it for a placeholder of the values after it), a hexadecimal literal of its UTF-8 text
 * (`_utf8mb4 X'…'`, of utf8mb4's default collation).
 */
export const mysqlTextLiteral = (text: string): string =>
  /[\\?]/.test(text) ? `_utf8mb4 X'${Buffer.from(text, "utf8").toString("hex")}'` : `'${text.replaceAll("'", "''")}'`;

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
  async test(c, signal, network) {
    const conn = await abortable(mysql.createConnection(mysqlOptions(c, network.resolver)), signal);
    try {
      await abortable(conn.ping(), signal);
      return `connected to MySQL at ${c.host}:${c.port ?? 3306}/${c.schema}`;
    } finally {
      conn.destroy();
    }
  },
};
