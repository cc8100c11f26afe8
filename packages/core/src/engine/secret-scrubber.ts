import type { ConnectionFields } from "../connectors/connector.js";
import { MASKED_SECRET } from "../model/connection.js";

/**
 * Names of `extra` keys (at any depth) and URL query parameters whose values are secrets: token, api_key, apikey,
 * secret, secret_access_key, password, private_key, passphrase, authorization, access_token, client_secret, …
 */
const SECRET_NAME =
  /(^|[_.-])(token|secret|password|passwd|pwd|passphrase|private[_-]?key|api[_-]?key|apikey|authorization|credentials?|signature)($|[_.-])/i;

/** True when a key or parameter name says its value is a secret. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** Below this length a secret is masked only where it stands as its own token ("p" must not mangle "unexpectedly"). */
const SHORT = 4;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The spellings a value takes in run text: as is, URL-encoded (component, form, path, query), JSON-escaped, base64. */
function formsOf(value: string): string[] {
  const forms = new Set([value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2)]);
  forms.add(JSON.stringify(value).slice(1, -1));
  forms.add(Buffer.from(value).toString("base64"));
  try {
    forms.add(new URL(`http://h/${value}`).pathname.slice(1));
    forms.add(new URL(`http://h/?v=${value}`).search.slice(3));
  } catch {
    // not representable in a URL: its other forms are enough
  }
  return [...forms].filter((f) => f !== "");
}

/** `scheme://user:password@` — the password of URL userinfo, whoever put it there. */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#:@]*:)([^\s/?#@]+)@/gi;
/** `?name=value` / `&name=value` in a URL-like text. */
const QUERY_PARAM = /([?&])([^=&\s#"'<>]+)=([^&\s#"'<>]*)/g;

/**
 * The one place secret values are masked (docs/security.md: "Secret values never leave in clear"). A run gets one
 * scrubber: the node context records every secret as it resolves it (secret variables, connection passwords,
 * secret keys of `extra`, the Basic auth header built from login and password), and everything a run writes out
 * — log lines, node errors, DLQ entries and payloads, and through them events, hook payloads and the server log —
 * passes `scrub`. URLs keep their origin and path; a userinfo password and secret-named query values are masked
 * even when not recorded.
 */
export class SecretScrubber {
  private readonly long = new Set<string>();
  private readonly short = new Set<string>();
  private pattern: RegExp | null = null;

  /** A scrubber knowing the secrets of one connection (connection tests, whose causes go to the server log). */
  static forConnection(c: ConnectionFields): SecretScrubber {
    const scrubber = new SecretScrubber();
    scrubber.addConnection(c);
    return scrubber;
  }

  /** Records a secret value; every spelling of it is masked from now on. */
  add(value: string | number | null | undefined): void {
    if (value === null || value === undefined) return;
    const text = String(value);
    if (text === "" || text === MASKED_SECRET) return;
    for (const form of formsOf(text)) (form.length < SHORT ? this.short : this.long).add(form);
    this.pattern = null;
  }

  /**
   * Records a connection's secrets: password, `login:password` as Basic auth, secret-named `extra` keys, all of
   * `extra.headers`.
   */
  addConnection(c: ConnectionFields): void {
    this.add(c.password);
    if (c.login && c.password) this.add(`${c.login}:${c.password}`);
    this.addSecretsOf(c.extra, false);
  }

  private addSecretsOf(value: unknown, secret: boolean): void {
    if (typeof value === "string" || typeof value === "number") {
      if (secret) this.add(value);
    } else if (Array.isArray(value)) {
      for (const item of value) this.addSecretsOf(item, secret);
    } else if (value && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        this.addSecretsOf(item, secret || isSecretName(key) || key.toLowerCase() === "headers");
      }
    }
  }

  /** `text` with every recorded secret, URL userinfo password and secret-named query value replaced by `********`. */
  scrub(text: string): string {
    let out = text;
    const pattern = this.compiled();
    if (pattern) out = out.replace(pattern, MASKED_SECRET);
    out = out.replace(USERINFO, `$1${MASKED_SECRET}@`);
    return out.replace(QUERY_PARAM, (whole, sep: string, name: string, value: string) =>
      value !== "" && value !== MASKED_SECRET && isSecretName(safeDecode(name))
        ? `${sep}${name}=${MASKED_SECRET}`
        : whole,
    );
  }

  /** A copy of a JSON-like value with every string scrubbed (DLQ payloads, event and hook fields). */
  scrubValue<T>(value: T): T {
    if (typeof value === "string") return this.scrub(value) as T;
    if (Array.isArray(value)) return value.map((v: unknown) => this.scrubValue(v)) as T;
    if (
      value &&
      typeof value === "object" &&
      [Object.prototype, null].includes(Object.getPrototypeOf(value) as object | null)
    ) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.scrubValue(v)])) as T;
    }
    return value;
  }

  private compiled(): RegExp | null {
    if (this.pattern || (this.long.size === 0 && this.short.size === 0)) return this.pattern;
    // longest first, so a secret containing another is masked whole
    const long = [...this.long].sort((a, b) => b.length - a.length).map(escapeRegExp);
    const short = [...this.short].map((s) => `(?<![A-Za-z0-9])${escapeRegExp(s)}(?![A-Za-z0-9])`);
    this.pattern = new RegExp([...long, ...short].join("|"), "g");
    return this.pattern;
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
