import pg from "pg";
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

/** pg client settings: the connection's URI and a socket that passes the address guard (docs/security.md). */
export function pgClientConfig(
  c: ConnectionFields & { uri: string },
  resolver: DnsResolver = systemDnsResolver,
): pg.ClientConfig {
  return { connectionString: c.uri, stream: () => new GuardedSocket(resolver) };
}

export const postgresConnector: Connector = {
  type: "postgres",
  label: "PostgreSQL",
  fields: ["host", "port", "schema", "login", "password"],
  driver: "pg",
  async confineFiles(c, access) {
    const extra = { ...c.extra };
    for (const name of FILE_OPTIONS) {
      const value = extra[name];
      if (value !== undefined && value !== null) extra[name] = await resolveConfinedPath(String(value), access);
    }
    return { ...c, extra };
  },
  uri(c) {
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
