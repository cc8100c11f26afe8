import type { ConnectionType } from "../model/connection.js";
import type { ResolvedConnection } from "./resolver.js";

/** The fields of a stored connection a connector needs (secrets decrypted, `extra` parsed). */
export type ConnectionFields = Omit<ResolvedConnection, "uri">;

/** One connection type: its label and fields (SPEC part 2), how its URI is built and how it is tested. */
export interface Connector {
  type: ConnectionType;
  label: string;
  fields: string[];
  /** Driver name reported by a successful test. */
  driver: string;
  uri(c: ConnectionFields): string;
  /** A real round trip; resolves with a success message, rejects with the real cause (logged, never returned). */
  test(c: ConnectionFields, signal: AbortSignal): Promise<string>;
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
