import { createHash } from "node:crypto";

/** A short key for a JSON-like value's whole content (SHA-256 of its JSON): equal content, equal key. */
export function contentDigest(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("base64");
}
