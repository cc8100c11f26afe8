import { matchesApiKey } from "../auth/api-keys.js";
import { LOCKOUT_DURATION_MS, LOCKOUT_THRESHOLD, LOCKOUT_WINDOW_MS, lockRemainingSeconds } from "../auth/lockout.js";
import { hashPassword, prepareDummyHash, verifyPassword } from "../auth/password.js";
import { roleHasPermission } from "../auth/permissions.js";
import type { RouteAccess } from "../model/permissions.js";
import {
  API_KEY_IDENTITY,
  OPEN_MODE_IDENTITY,
  type AuthenticatedPrincipal,
  type Credentials,
  type Principal,
} from "../auth/principal.js";
import { signToken, verifyToken } from "../auth/tokens.js";
import { nowIso, type Clock } from "../clock.js";
import { SluiceError } from "../errors.js";
import { newId } from "../ids.js";
import type { Logger } from "../logger.js";
import {
  AdminResetPasswordRequestSchema,
  ChangePasswordRequestSchema,
  CreateUserRequestSchema,
  LoginRequestSchema,
  normalizedUsername,
  type LoginResponse,
  type Role,
  type SetupStatus,
  type User,
} from "../model/user.js";
import type { Store, UserRecord } from "../store/ports.js";
import { parseInput } from "../validation.js";

export interface AuthServiceDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  apiKeys: readonly string[];
  /** HS256 key (32 bytes). */
  jwtSecret: Uint8Array;
}

/** How long "does any user exist?" is cached; other instances see a first user within this time. */
const SETUP_CACHE_MS = 1000;
/** Failed-login rows of finished windows are pruned at most this often (they pile up under guessing attacks). */
const PRUNE_INTERVAL_MS = 60_000;

const unauthorized = (message: string) => new SluiceError("unauthorized", message);
const publicUser = (u: UserRecord): User => ({ id: u.id, username: u.username, role: u.role });
const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * Only a superadmin creates, promotes, demotes or resets a superadmin: an admin (or the API key, which acts as
 * admin) managing one could make itself one. Open mode's anonymous caller is everything, like a superadmin.
 */
function assertMayManageRole(principal: Principal, targetRole: Role, action: string): void {
  if (targetRole !== "superadmin") return;
  if (principal.kind !== "guest" && principal.user.role === "superadmin") return;
  throw new SluiceError("forbidden", `only a superadmin may ${action} a superadmin`);
}

/** Users, login, lockout, tokens and the permission check every adapter applies to every route. */
export class AuthService {
  private usersExist: { value: boolean; at: number } | null = null;
  /** First-user creations of this process, one after another. */
  private firstUserTurn: Promise<unknown> = Promise.resolve();
  private lastPrune = 0;

  constructor(private readonly deps: AuthServiceDeps) {
    prepareDummyHash();
  }

  /** True while no user exists (open mode). Cached for at most a second. */
  async needsSetup(): Promise<boolean> {
    const cached = this.usersExist;
    if (cached && Date.now() - cached.at < SETUP_CACHE_MS) return !cached.value;
    const value = (await this.deps.store.users.count()) > 0;
    this.usersExist = { value, at: Date.now() };
    return !value;
  }

  /**
   * Open mode: no user exists and no API key is configured. A server started with an API key is never open;
   * until the first user exists it answers the key only (docs/security.md).
   */
  async isOpen(): Promise<boolean> {
    return this.deps.apiKeys.length === 0 && (await this.needsSetup());
  }

  async setupStatus(): Promise<SetupStatus> {
    return { needs_setup: await this.needsSetup() };
  }

  /**
   * The caller behind `credentials`, or null when none were sent. Credentials that were sent but do not hold
   * (unknown key, bad signature, expired, issued before a password change, deleted user) are a 401.
   */
  async authenticate(credentials: Credentials): Promise<AuthenticatedPrincipal | null> {
    const { bearer, apiKey, cookie, queryToken } = credentials;
    const isApiKey = (value: string) => matchesApiKey(value, this.deps.apiKeys);
    const asApiKey: AuthenticatedPrincipal = { kind: "api_key", user: API_KEY_IDENTITY };
    // a bearer or ?token= value is an API key when it matches one, else a JWT
    if (bearer !== undefined)
      return isApiKey(bearer) ? asApiKey : this.principalFromToken(bearer, "invalid or expired token");
    if (apiKey !== undefined) {
      if (isApiKey(apiKey)) return asApiKey;
      throw unauthorized("invalid API key");
    }
    if (cookie !== undefined) return this.principalFromToken(cookie, "session expired or invalid; log in again");
    if (queryToken !== undefined)
      return isApiKey(queryToken) ? asApiKey : this.principalFromToken(queryToken, "invalid or expired token");
    return null;
  }

  /**
   * The permission check for one operation: public operations (and the webhook, which checks its own token) let
   * everyone through, as does open mode; otherwise missing or invalid credentials are 401 and a role without the
   * permission is 403.
   */
  async authorize(access: RouteAccess, credentials: Credentials): Promise<Principal> {
    // credentials are not even looked at
    if (access === "public" || access === "webhook") return { kind: "guest" };
    if (await this.isOpen()) {
      return (
        (await this.authenticate(credentials).catch(() => null)) ?? { kind: "anonymous", user: OPEN_MODE_IDENTITY }
      );
    }
    const principal = await this.authenticate(credentials);
    if (!principal) throw unauthorized("authentication required");
    if (!roleHasPermission(principal.user.role, access)) {
      throw new SluiceError("forbidden", `role '${principal.user.role}' lacks the permission '${access}'`);
    }
    return principal;
  }

  async login(input: unknown): Promise<LoginResponse> {
    const { username: typed, password } = parseInput(LoginRequestSchema, input);
    // names are stored in NFC; one stored before that, decomposed, is still found as typed
    const username = normalizedUsername(typed);
    const { store, clock } = this.deps;
    const attempt = await store.loginAttempts.get(username);
    const locked = lockRemainingSeconds(attempt?.locked_until ?? null, clock.now());
    if (locked !== null) throw this.lockedError(locked);

    // The attempt counts as a failure before the password is checked, and is cleared if it was right: attempts sent
    // at once are numbered by the store one by one, so no more than LOCKOUT_THRESHOLD of them are ever checked (read
    // first and counted after, a burst of a hundred would all have been checked before the first counted).
    const now = clock.now();
    const counted = await store.loginAttempts.recordFailure(username, {
      at: now.toISOString(),
      windowStart: new Date(now.getTime() - LOCKOUT_WINDOW_MS).toISOString(),
      threshold: LOCKOUT_THRESHOLD,
      lockUntil: new Date(now.getTime() + LOCKOUT_DURATION_MS).toISOString(),
    });
    if (counted.failures > LOCKOUT_THRESHOLD)
      throw this.lockedError(lockRemainingSeconds(counted.locked_until, now) ?? LOCKOUT_DURATION_MS / 1000);

    const user =
      (await store.users.getByUsername(username)) ??
      (typed !== username ? await store.users.getByUsername(typed) : null);
    // unknown users hash against a dummy: the same work, so timing does not reveal which usernames exist
    const ok = await verifyPassword(password, user?.password_hash ?? null);
    if (!ok || !user) {
      if (counted.failures === LOCKOUT_THRESHOLD) {
        this.deps.logger.warn("login locked after repeated failures", { username, locked_until: counted.locked_until });
      }
      await this.pruneLoginAttempts(now);
      throw unauthorized("invalid username or password");
    }
    await store.loginAttempts.clear(username);
    return { token: await this.issueToken(user), user: publicUser(user) };
  }

  /** The current identity; an API key and open mode report synthetic identities. */
  me(principal: Principal): User {
    if (principal.kind === "guest") throw unauthorized("authentication required");
    return { ...principal.user };
  }

  /**
   * Creates a user (admin). The first user may be created anonymously (open mode) or with the API key, and is
   * always `admin`, whatever role was asked for. Only a superadmin creates a superadmin. Checked against the
   * database, not the cache, so a racing instance cannot slip a second first user in.
   */
  async createUser(principal: Principal, input: unknown): Promise<User> {
    const body = parseInput(CreateUserRequestSchema, input);
    if ((await this.deps.store.users.count()) > 0) return this.createLaterUser(principal, body);
    // the first user: one request at a time in this process. An anonymous one is checked again once inserted,
    // against other instances: nobody else can add a user within those milliseconds (no credentials exist yet;
    // a server with an API key is never open), so another user there is another anonymous first user racing this
    // one. Of users inserted at once, one that found itself alone stays; a later one removes itself (409), so a
    // racing request cannot slip in a second admin
    const turn = this.firstUserTurn.then(async () => {
      if ((await this.deps.store.users.count()) > 0) return this.createLaterUser(principal, body);
      const user = await this.insertUser(body, "admin");
      if (principal.kind === "anonymous" && (await this.deps.store.users.count()) > 1) {
        await this.deps.store.users.remove(user.id);
        this.usersExist = null;
        throw new SluiceError("conflict", "another first user was being created at the same moment; try again");
      }
      return user;
    });
    this.firstUserTurn = turn.catch(() => undefined);
    return turn;
  }

  private createLaterUser(principal: Principal, body: ReturnType<typeof CreateUserRequestSchema.parse>): Promise<User> {
    if (principal.kind === "anonymous" || principal.kind === "guest") throw unauthorized("authentication required");
    assertMayManageRole(principal, body.role, "create");
    return this.insertUser(body, body.role);
  }

  /**
   * Creates a user of any role, superadmin included, with no caller to check: for the operator's own tools
   * (`sluice create-user`, an embedding host), who hold the database anyway. The only way to a first superadmin.
   */
  async createUserAsOperator(input: unknown): Promise<User> {
    const body = parseInput(CreateUserRequestSchema, input);
    return this.insertUser(body, body.role);
  }

  private async insertUser(body: { username: string; password: string }, role: Role): Promise<User> {
    const { store } = this.deps;
    const now = this.now();
    const record: UserRecord = {
      id: newId(),
      username: body.username,
      role,
      password_hash: await hashPassword(body.password),
      password_changed_at: now,
      created_at: now,
      updated_at: now,
    };
    if (!(await store.users.insert(record)))
      throw new SluiceError("conflict", `username '${body.username}' is already taken`);
    this.usersExist = { value: true, at: Date.now() };
    return publicUser(record);
  }

  async listUsers(): Promise<User[]> {
    return (await this.deps.store.users.list()).map(publicUser);
  }

  /** Changes the caller's own password; every token issued before is refused from now on. Returns a fresh login. */
  async changePassword(principal: Principal, input: unknown): Promise<LoginResponse> {
    const body = parseInput(ChangePasswordRequestSchema, input);
    if (principal.kind !== "user")
      throw new SluiceError("bad_request", "only a signed-in user has a password to change");
    const { store } = this.deps;
    const user = await store.users.getById(principal.user.id);
    if (!user) throw unauthorized("authentication required");
    if (!(await verifyPassword(body.current_password, user.password_hash))) {
      throw new SluiceError("bad_request", "current_password is incorrect");
    }
    const changedAt = this.passwordChangeTime(user);
    await store.users.updatePassword(user.id, await hashPassword(body.new_password), changedAt);
    const updated = { ...user, password_changed_at: changedAt };
    return { token: await this.issueToken(updated), user: publicUser(updated) };
  }

  /**
   * An admin sets another user's password: revokes that user's tokens and lifts a lockout. A superadmin's
   * password is reset by a superadmin only (else an admin could take the account over).
   */
  async adminResetPassword(principal: Principal, input: unknown): Promise<User> {
    const body = parseInput(AdminResetPasswordRequestSchema, input);
    const { store } = this.deps;
    const user = await store.users.getById(body.user_id);
    if (!user) throw new SluiceError("not_found", `user '${body.user_id}' not found`);
    assertMayManageRole(principal, user.role, "reset the password of");
    await store.users.updatePassword(user.id, await hashPassword(body.new_password), this.passwordChangeTime(user));
    await store.loginAttempts.clear(user.username);
    return publicUser(user);
  }

  private async pruneLoginAttempts(now: Date): Promise<void> {
    if (now.getTime() - this.lastPrune < PRUNE_INTERVAL_MS) return;
    this.lastPrune = now.getTime();
    const windowStart = new Date(now.getTime() - LOCKOUT_WINDOW_MS).toISOString();
    await this.deps.store.loginAttempts.prune(windowStart, now.toISOString()).catch((e: unknown) => {
      this.deps.logger.warn("could not prune login attempts", { error: e instanceof Error ? e.message : String(e) });
    });
  }

  private now(): string {
    return nowIso(this.deps.clock);
  }

  /**
   * `iat` is whole seconds while password_changed_at has milliseconds: a token counts only when issued in a later
   * second than the change. New tokens are therefore dated at least one second after the change, so a login right
   * after a change works and a token from the same second before it does not.
   */
  private issueToken(user: UserRecord): Promise<string> {
    const iat = Math.max(Math.floor(this.deps.clock.now().getTime() / 1000), seconds(user.password_changed_at) + 1);
    return signToken(this.deps.jwtSecret, user, iat);
  }

  /**
   * When a new password takes effect: now, but never in the same second as the previous change — tokens issued
   * after that change may carry its second + 1 as `iat`, and this change must revoke them too.
   */
  private passwordChangeTime(user: UserRecord): string {
    const afterPrevious = (seconds(user.password_changed_at) + 1) * 1000;
    return new Date(Math.max(this.deps.clock.now().getTime(), afterPrevious)).toISOString();
  }

  private async principalFromToken(token: string, message: string): Promise<AuthenticatedPrincipal> {
    const claims = await verifyToken(this.deps.jwtSecret, token, this.deps.clock.now());
    if (!claims) throw unauthorized(message);
    const user = await this.deps.store.users.getById(claims.sub);
    if (!user || claims.iat <= seconds(user.password_changed_at)) throw unauthorized(message);
    return { kind: "user", user: publicUser(user) };
  }

  private lockedError(retryAfterSeconds: number): SluiceError {
    return new SluiceError("rate_limited", "too many failed logins; this account is locked for now", {
      retryAfterSeconds,
    });
  }
}
