import { randomBytes, timingSafeEqual, createHash } from "node:crypto";

export const API_KEY_PREFIX = "svc_";
export const API_KEY_PATTERN = /^svc_[0-9a-f]{48}$/;

/** A new API key: `svc_` followed by 48 hex characters (24 random bytes). */
export function generateApiKey(): string {
  return `${API_KEY_PREFIX}${randomBytes(24).toString("hex")}`;
}

/**
 * Constant-time membership test (hashing first makes lengths equal). With no keys configured nothing is hashed: every
 * request with a token asks, and the answer then depends on the server's settings alone, never on the candidate.
 */
export function matchesApiKey(candidate: string, keys: readonly string[]): boolean {
  if (keys.length === 0) return false;
  const digest = createHash("sha256").update(candidate).digest();
  let found = false;
  for (const key of keys) {
    const other = createHash("sha256").update(key).digest();
    if (timingSafeEqual(digest, other)) found = true;
  }
  return found;
}
