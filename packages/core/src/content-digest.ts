import { createHash } from "node:crypto";

/** Digests handed out with values read from JSON that was digested (`withDigest`). */
const KNOWN = new WeakMap<object, string>();

/** A short key for a JSON-like value's whole content (SHA-256 of its JSON): equal content, equal key. */
export function contentDigest(value: unknown): string {
  return jsonDigest(JSON.stringify(value));
}

/** `contentDigest` of the value `json` is the JSON of. */
export function jsonDigest(json: string): string {
  return createHash("sha256").update(json).digest("base64");
}

/**
 * `value`, handed out with its digest `digest` (a value just parsed from JSON whose digest was kept), for `digestOf`.
 * Whoever changes the value afterwards has a value whose content no longer matches that digest.
 */
export function withDigest<T extends object>(value: T, digest: string): T {
  KNOWN.set(value, digest);
  return value;
}

/**
 * The digest `value` was handed out with, else its `contentDigest`. Only for a value the caller has just been handed
 * (a pipeline it read from the store this turn, before any code could change it); elsewhere use `contentDigest`.
 */
export function digestOf(value: object): string {
  return KNOWN.get(value) ?? contentDigest(value);
}
