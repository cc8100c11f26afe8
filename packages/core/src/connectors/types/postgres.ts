import pg from "pg";
import { abortable, enc, extraOptions, type Connector } from "../connector.js";

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
  async test(c, signal) {
    const client = new pg.Client({ connectionString: this.uri(c), connectionTimeoutMillis: 5000 });
    try {
      await abortable(client.connect(), signal, () => void client.end().catch(() => undefined));
      await abortable(client.query("SELECT 1"), signal);
      return `connected to PostgreSQL at ${c.host}:${c.port ?? 5432}/${c.schema}`;
    } finally {
      await client.end().catch(() => undefined);
    }
  },
};
