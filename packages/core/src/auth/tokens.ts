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

/** The verified claims, or null for any bad signature, algorithm, shape or an expired token. */
export async function verifyToken(secret: Uint8Array, token: string, now: Date): Promise<TokenClaims | null> {
  try {
    const { payload } = await jwtVerify(token, secret, {
      algorithms: ["HS256"],
      currentDate: now,
      requiredClaims: ["sub", "iat", "exp"],
    });
    const { sub, username, role, iat, exp } = payload as Record<string, unknown>;
    if (typeof sub !== "string" || typeof username !== "string" || typeof iat !== "number" || typeof exp !== "number")
      return null;
    if (!(ROLES as readonly unknown[]).includes(role)) return null;
    return { sub, username, role: role as Role, iat, exp };
  } catch {
    return null;
  }
}
