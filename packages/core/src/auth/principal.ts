import type { Role, User } from "../model/user.js";

/**
 * Who is calling: a signed-in user, an API key (acts as admin), anyone while no user exists (open mode, allowed
 * everything), or an unauthenticated caller of a public route (`guest`, allowed nothing beyond that route).
 */
export type Principal =
  | { readonly kind: "user"; readonly user: User }
  | { readonly kind: "api_key"; readonly user: User }
  | { readonly kind: "anonymous"; readonly user: User }
  | { readonly kind: "guest" };

/** A caller proven by credentials. */
export type AuthenticatedPrincipal = Extract<Principal, { kind: "user" | "api_key" }>;

/** Credentials as a request carries them; the first one present decides (Bearer, then X-API-Key, then cookie). */
export interface Credentials {
  /** `Authorization: Bearer <value>`: a JWT or an API key. */
  readonly bearer?: string;
  /** `X-API-Key`. */
  readonly apiKey?: string;
  /** The `svc_session` cookie (a JWT). */
  readonly cookie?: string;
  /** `?token=` (WebSocket upgrades only, where browsers cannot set headers). */
  readonly queryToken?: string;
}

export const API_KEY_IDENTITY: User = Object.freeze({
  id: "api-key",
  username: "api-key",
  role: "admin" satisfies Role,
});
/** Open mode: nobody is signed in and everything is allowed. */
export const OPEN_MODE_IDENTITY: User = Object.freeze({
  id: "anonymous",
  username: "anonymous",
  role: "superadmin" satisfies Role,
});
