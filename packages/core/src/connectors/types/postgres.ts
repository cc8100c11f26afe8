import fs from "node:fs";
import pg from "pg";
import { parse } from "pg-connection-string";
import { SluiceError } from "../../errors.js";
import { systemDnsResolver, type DnsResolver } from "../../engine/http/address-guard.js";
import { GuardedSocket } from "../../engine/http/guarded-socket.js";
import { resolveConfinedPath } from "../../file-access.js";
import { abortable, enc, extraOptions, type ConnectionFields, type Connector } from "../connector.js";

/**
 * The `extra` options that name files on this machine: pg reads the client certificate, its key and the root
 * certificate from them when it connects. They obey the file roots, as SQLite paths do (docs/security.md): an editor
 * could otherwise read any file (its content offered to a server of theirs as a certificate) or probe for it.
 */
const FILE_OPTIONS = ["sslcert", "sslkey", "sslrootcert"] as const;

/**
 * Largest certificate or key file: pg reads them whole, synchronously, on the server's thread, at every connection
 * attempt (a 480 MB file in a file root held every request for seconds per attempt).
 */
const CERT_FILE_BYTES = 1024 * 1024;

/**
 * pg client settings: the connection's URI as pg would read it, its password given as a function, and a socket that
 * passes the address guard (docs/security.md). pg takes an empty password as none and falls back to the server's
 * own `PGPASSWORD`, then to `~/.pgpass` (`PGPASSFILE`): an editor's connection to a host of theirs, without a
 * password, received the server's database password (found by a helper's attack). A password function is used as
 * it is, never in favour of those; parsed here because pg lets a connection string's empty password win over it.
 */
export function pgClientConfig(
  c: ConnectionFields & { uri: string },
  resolver: DnsResolver = systemDnsResolver,
): pg.ClientConfig {
  const { password: _fromUri, ...parsed } = parse(c.uri);
  return {
    ...(parsed as pg.ClientConfig),
    password: () => c.password ?? "",
    stream: () => new GuardedSocket(resolver),
  };
}

/**
 * A host as the URI may hold it: a name or IPv4 address, or an IPv6 address in brackets. Anything else (`/`, `?`,
 * `#`, `@`, `:`) would be read by pg as more of the URI: `db?sslcert=/etc/…#` named a file outside the file roots.
 */
const URI_HOST = /^(?:[\p{L}\p{N}._-]+|\[[0-9A-Fa-f:.]+\])$/u;

export const postgresConnector: Connector = {
  type: "postgres",
  label: "PostgreSQL",
  fields: ["host", "port", "schema", "login", "password"],
  driver: "pg",
  async confineFiles(c, access) {
    const extra = { ...c.extra };
    for (const name of FILE_OPTIONS) {
      const value = extra[name];
      if (value === undefined || value === null) continue;
      const real = await resolveConfinedPath(String(value), access);
      const size = (await fs.promises.stat(real).catch(() => null))?.size ?? 0;
      if (size > CERT_FILE_BYTES)
        throw new SluiceError("invalid", `${name}: '${String(value)}' is larger than a certificate or key (1 MiB)`);
      extra[name] = real;
    }
    return { ...c, extra };
  },
  uri(c) {
    if (!URI_HOST.test(c.host ?? ""))
      throw new SluiceError(
        "invalid",
        `PostgreSQL host '${String(c.host).slice(0, 100)}' is not a host name or IP address (give the port in port)`,
      );
    const options = new Map<string, string>([["sslmode", "disable"], ...extraOptions(c.extra)]);
    const query = [...options].map(([k, v]) => `${enc(k)}=${enc(v)}`).join("&");
    return `postgres://${enc(c.login)}:${enc(c.password)}@${c.host}:${c.port ?? 5432}/${enc(c.schema)}?${query}`;
  },
  async test(c, signal, network) {
    const client = new pg.Client({
      ...pgClientConfig({ ...c, uri: this.uri(c) }, network.resolver),
      connectionTimeoutMillis: 5000,
    });
    try {
      await abortable(client.connect(), signal, () => void client.end().catch(() => undefined));
      await abortable(client.query("SELECT 1"), signal);
      return `connected to PostgreSQL at ${c.host}:${c.port ?? 5432}/${c.schema}`;
    } finally {
      await client.end().catch(() => undefined);
    }
  },
};
