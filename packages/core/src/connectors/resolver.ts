import type { ConnectionType } from "../model/connection.js";

/** A stored connection with its secrets decrypted — only ever held in memory while a node runs. */
export interface ResolvedConnection {
  conn_id: string;
  type: ConnectionType;
  host: string;
  port: number | null;
  schema: string;
  login: string;
  password: string;
  /** `extra` parsed from its JSON string ({} when empty). */
  extra: Record<string, unknown>;
  /** Full URI/DSN as SPEC part 2 builds it (postgres URI, mysql DSN, sqlite file path, http base URL…). */
  uri: string;
}

/** A stored variable's value as the engine sees it. */
export interface ResolvedVariable {
  value: string;
  secret: boolean;
}

/**
 * How the engine reaches stored connections and variables at run time. Implemented by the connections/variables
 * services; unknown names reject with a SluiceError("not_found").
 */
export interface SecretsResolver {
  connection(connId: string): Promise<ResolvedConnection>;
  /** The variable's value (secrets decrypted) and whether it is a secret (then masked in everything a run writes). */
  variable(key: string): Promise<ResolvedVariable>;
  /**
   * Every stored connection id and secret variable key: a resumed run masks all their secrets, since the output it
   * reuses may hold any that the pipeline, as it was then, resolved. Without it, a resumed run resolves what the
   * reused nodes' current configs name.
   */
  secretNames?(): Promise<{ connections: string[]; variables: string[] }>;
}
