import type { FileAccess } from "../file-access.js";
import { systemDnsResolver, type DnsResolver } from "../engine/http/address-guard.js";
import { createHttpClient, defaultHttpClient, type HttpClient } from "../engine/http/http-client.js";
import type { ConnectionType } from "../model/connection.js";
import type { ResolvedConnection } from "./resolver.js";

/** The fields of a stored connection a connector needs (secrets decrypted, `extra` parsed). */
export type ConnectionFields = Omit<ResolvedConnection, "uri">;

/**
 * How a connection test reaches the network. Every connection goes through the address guard (docs/security.md): names
 * resolve through `resolver` and are checked at connect time, IP literals before connecting.
 */
export interface GuardedNetwork {
  resolver: DnsResolver;
  /** The guarded HTTP client (using the same resolver). */
  http: HttpClient;
}

/** The guarded network for a resolver (default: system DNS and the shared guarded HTTP client). */
export function guardedNetwork(resolver?: DnsResolver): GuardedNetwork {
  return resolver
    ? { resolver, http: createHttpClient({ resolver }) }
    : { resolver: systemDnsResolver, http: defaultHttpClient() };
}

/** One connection type: its label and fields (SPEC part 2), how its URI is built and how it is tested. */
export interface Connector {
  type: ConnectionType;
  label: string;
  fields: string[];
  /** Driver name reported by a successful test. */
  driver: string;
  uri(c: ConnectionFields): string;
  /**
   * Fields besides type, host, port and extra that choose where the connection's credentials are sent (http:
   * `schema`, its scheme: `https` to `http` sends them in clear, to another port). Changing one while keeping a stored
   * password is changing its destination (`ConnectionService.update`).
   */
  destinationFields?: readonly ("schema" | "login")[];
  /** A real round trip; resolves with a success message, rejects with the real cause (logged, never returned). */
  test(c: ConnectionFields, signal: AbortSignal, network: GuardedNetwork): Promise<string>;
  /**
   * For types that open files on this machine (SQLite; PostgreSQL's certificate files): the fields with those paths
   * resolved inside the file roots, refusing the server's state files. Applied at every use (node run, connection
   * test), never only at creation.
   */
  confineFiles?(c: ConnectionFields, access: FileAccess): Promise<ConnectionFields>;
}

export const enc = encodeURIComponent;

/** `extra` options as query parameters (strings, numbers and booleans only). */
export function extraOptions(extra: Record<string, unknown>, skip: readonly string[] = []): [string, string][] {
  return Object.entries(extra)
    .filter(([k, v]) => !skip.includes(k) && ["string", "number", "boolean"].includes(typeof v))
    .map(([k, v]) => [k, String(v)]);
}

/** Rejects when the signal aborts (the 5-second bound of a connection test). */
export function abortable<T>(work: Promise<T>, signal: AbortSignal, onAbort?: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => {
      onAbort?.();
      reject(new Error("timed out"));
    };
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}
