import { createHash } from "node:crypto";

/** Digests already known, of values read from JSON that was digested (`withDigest`). */
const KNOWN = new WeakMap<object, string>();

/** A short key for a JSON-like value's whole content (SHA-256 of its JSON): equal content, equal key. */
export function contentDigest(value: unknown): string {
  const known = typeof value === "object" && value !== null ? KNOWN.get(value) : undefined;
  return known ?? jsonDigest(JSON.stringify(value));
}

/** `contentDigest` of the value `json` is the JSON of. */
export function jsonDigest(json: string): string {
  return createHash("sha256").update(json).digest("base64");
}

/**
 * `value`, with its `contentDigest` known to be `digest` (a value just parsed from JSON whose digest was kept), so it
 * is not computed again. The value must not be changed afterwards: its digest would no longer be its content's.
 */
export function withDigest<T extends object>(value: T, digest: string): T {
  KNOWN.set(value, digest);
  return value;
}
