import { SignJWT, jwtVerify } from "jose";
import { ROLES, type Role } from "../model/user.js";

/** Session and token lifetime: 24 hours (SPEC part 8). */
export const TOKEN_TTL_SECONDS = 24 * 60 * 60;

export interface TokenClaims {
  sub: string;
  username: string;
  role: Role;
  /** Seconds since the epoch (integer). */
  iat: number;
  exp: number;
}

/** Signs an HS256 JWT with claims `sub, username, role, iat, exp`; `iatSeconds` is chosen by the caller. */
export async function signToken(
  secret: Uint8Array,
  user: { id: string; username: string; role: Role },
  iatSeconds: number,
): Promise<string> {
  return new SignJWT({ username: user.username, role: user.role })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(user.id)
    .setIssuedAt(iatSeconds)
    .setExpirationTime(iatSeconds + TOKEN_TTL_SECONDS)
    .sign(secret);
}

/**
 * The secret as an HMAC key, imported once per secret: jose would import raw bytes again for every token it
 * verifies, which is half of what a verification costs (every request with a token makes one).
 */
const verifyKeys = new WeakMap<Uint8Array, Promise<CryptoKey>>();
function verifyKey(secret: Uint8Array): Promise<CryptoKey> {
  let key = verifyKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", new Uint8Array(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
    verifyKeys.set(secret, key);
  }
  return key;
}

/**
 * Tokens verified already, per secret, newest last: what a token's signature and claims say never changes, only
 * whether it has expired, so a token sent again (every request of a session) is not verified again. Bounded; the
 * oldest are forgotten first (and verified again if they come back).
 */
const verified = new WeakMap<Uint8Array, Map<string, TokenClaims>>();
const MAX_VERIFIED = 10_000;

/**
 * What this server's tokens look like (HS256: a 43-character signature), nothing else: jose decodes base64url
 * leniently (whitespace inside is ignored), so one token has endless spellings, each of which would be remembered.
 */
const COMPACT_HS256 = /^[A-Za-z0-9_-]{1,512}\.[A-Za-z0-9_-]{1,2048}\.[A-Za-z0-9_-]{43}$/;

/** The verified claims, or null for any bad signature, algorithm, shape or an expired token. */
export async function verifyToken(secret: Uint8Array, token: string, now: Date): Promise<TokenClaims | null> {
  if (!COMPACT_HS256.test(token)) return null;
  let known = verified.get(secret);
  const seen = known?.get(token);
  // as jose checks it: expired once `exp` is not after now, in whole seconds
  if (seen) return seen.exp > Math.floor(now.getTime() / 1000) ? seen : null;
  const claims = await verifyOnce(secret, token, now);
  if (claims) {
    if (!known) verified.set(secret, (known = new Map()));
    if (known.size >= MAX_VERIFIED) known.delete(known.keys().next().value as string);
    known.set(token, claims);
  }
  return claims;
}

async function verifyOnce(secret: Uint8Array, token: string, now: Date): Promise<TokenClaims | null> {
  try {
    const { payload } = await jwtVerify(token, await verifyKey(secret), {
      algorithms: ["HS256"],
      currentDate: now,
      requiredClaims: ["sub", "iat", "exp"],
    });
    const { sub, username, role, iat, exp } = payload as Record<string, unknown>;
    if (typeof sub !== "string" || typeof username !== "string" || typeof iat !== "number" || typeof exp !== "number")
      return null;
    if (!(ROLES as readonly unknown[]).includes(role)) return null;
    return Object.freeze({ sub, username, role: role as Role, iat, exp });
  } catch {
    return null;
  }
}
