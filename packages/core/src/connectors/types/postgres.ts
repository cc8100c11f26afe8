import pg from "pg";
import { systemDnsResolver, type DnsResolver } from "../../engine/http/address-guard.js";
import { GuardedSocket } from "../../engine/http/guarded-socket.js";
import { abortable, enc, extraOptions, type ConnectionFields, type Connector } from "../connector.js";

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
