import type { ConnectionFields } from "../connectors/connector.js";
import { MASKED_SECRET } from "../model/connection.js";
import type { Row } from "./dataset.js";
import { shownValue, type TextMask } from "./shown-value.js";
import { Slices } from "./slices.js";

/**
 * Names of `extra` keys (at any depth) and URL query parameters whose values are secrets: any name containing token,
 * secret, password, passwd, pwd, passphrase, private_key, api_key, apikey, authorization, credential or signature (in
 * any case and spelling: access_token, accessToken, clientSecret, sslpassword, …), and the names key, sig and auth.
 */
const SECRET_NAME =
  /(token|secret|password|passwd|pwd|passphrase|private[_-]?key|api[_-]?key|apikey|authorization|credential|signature)|^(key|sig|auth)$/i;

/** True when a key or parameter name says its value is a secret. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** Below this length a secret is masked only where it stands as its own token ("p" must not mangle "unexpectedly"). */
const SHORT = 4;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Base64 of `text` padded and unpadded, in the standard and the URL-safe alphabet. */
function base64Forms(text: string): string[] {
  const b64 = Buffer.from(text).toString("base64");
  const url = Buffer.from(text).toString("base64url");
  return [b64, b64.replace(/=+$/, ""), url, url.padEnd(b64.length, "=")];
}

/** The encodings of `text` as bytes: hex (either case: matching ignores case) and every base64 variant. */
const binaryForms = (text: string) => [Buffer.from(text).toString("hex"), ...base64Forms(text)];

/**
 * The spellings a value takes in run text: as is, URL-encoded (component, form, path, query), JSON-escaped (also
 * as PHP writes JSON, `\/` for `/`, and as Python does, `\u00e4` for every character outside ASCII).
 */
function formsOf(value: string): string[] {
  const forms = new Set([value, new URLSearchParams({ v: value }).toString().slice(2)]);
  try {
    forms.add(encodeURIComponent(value));
  } catch {
    // a lone surrogate has no URL encoding (URIError); the other forms are enough, and the secrets recorded after
    // this one must still be (the error stopped a run's recording of its secrets)
  }
  const json = JSON.stringify(value).slice(1, -1);
  forms.add(json);
  forms.add(json.replaceAll("/", "\\/"));
  forms.add(json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
  try {
    forms.add(new URL(`http://h/${value}`).pathname.slice(1));
    forms.add(new URL(`http://h/?v=${value}`).search.slice(3));
  } catch {
    // not representable in a URL: its other forms are enough
  }
  return [...forms].filter((f) => f !== "");
}

/** Scrubbed object keys a scrubber keeps (a run's rows repeat a few column names), and the longest it keeps. */
const MAX_KEYS_KEPT = 10_000;
const MAX_KEY_KEPT_CHARS = 256;

/** Shortest base64 run recorded on its own (`base64Cores`): shorter ones could match unrelated text. */
const MIN_CORE = 8;

/**
 * The base64 characters that depend on `value` alone, whatever bytes precede or follow it, at each of the three
 * alignments a value can have inside a longer text (`{"token":"…"}`, `Bearer …`): masking these masks the value
 * inside the base64 of any text containing it, leaving at most three characters at each end.
 */
function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value);
  const cores: string[] = [];
  for (const offset of [0, 1, 2]) {
    const b64 = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    // character i holds bits 6i..6i+5; keep those entirely inside the value's bits
    const first = Math.ceil((8 * offset) / 6);
    const end = Math.floor((8 * (offset + bytes.length)) / 6);
    const core = b64.slice(first, end);
    if (core.length >= MIN_CORE) cores.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return cores;
}

/**
 * What the recorded spellings are matched with: patterns, and spellings too long for one, each as is, lower- and
 * upper-cased (`compiled`), with the length of the shortest of those.
 */
interface Matchers {
  readonly patterns: readonly RegExp[];
  readonly plain: readonly string[];
  readonly shortestPlain: number;
}

/** Longest spelling matched by a pattern; a longer one is looked for as text. */
const MAX_PATTERN_SPELLING = 1024;
/** Characters of one pattern's source: V8 refuses patterns of some tens of thousands. */
const MAX_PATTERN_SOURCE = 8192;

/** `scheme://user:…` at the end of a cut text, its `@` cut off: the URL rule cannot tell a password there. */
const OPEN_USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*$/i;

/** `scheme://user:password@` — the password of URL userinfo, whoever put it there. */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#:@]*:)([^\s/?#]+)@/gi;
/** `http(s)://user@` with no password: the user is the credential there (`https://<token>@github.com/…`). */
const TOKEN_USERINFO = /\b(https?:\/\/)([^\s/?#:@]+)@/gi;
/** `?name=value` / `&name=value` in a URL-like text. */
const QUERY_PARAM = /([?&])([^=&\s#"'<>]+)=([^&\s#"'<>]*)/g;

/**
 * The one place secret values are masked (docs/security.md: "Secret values never leave in clear"). A run gets one
 * scrubber: the node context records every secret as it resolves it (secret variables, connection passwords,
 * secret keys of `extra`, the Basic auth header built from login and password), and everything a run writes out
 * — log lines, node errors, and through them events, hook payloads and the server log — passes `scrub`; previews,
 * profiles, dry-run rows and DLQ payloads pass `shown` (masked, then bounded). URLs keep their origin and path; a
 * userinfo password and secret-named query values are masked even when not recorded.
 *
 * A remote service may echo what it received transformed. Recognised: every recorded spelling in any letter case
 * (`XTRATOK3N` for `XtraTok3n`), hex, base64 and base64url (padded or not) of the value, of `Bearer <value>` and of
 * the Basic header value, and the value inside the base64 of any longer text (`base64Cores`). A value transformed
 * in another way (reversed, split by zero-width characters, encrypted, re-encoded twice, …) cannot be recognised.
 */
/** A decimal number as a secret may be written: digits, a fraction, an exponent. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;

export class SecretScrubber implements TextMask {
  private readonly long = new Set<string>();
  private readonly short = new Set<string>();
  /** What `record` compiled the spellings into (`compiled`); null once a spelling is recorded. */
  private matchers: Matchers | null = null;
  /** Object keys as scrubbed (rows repeat their keys): emptied whenever a secret is recorded. */
  private readonly keys = new Map<string, string>();
  private longest = 0;
  /** Secrets written as decimal numbers, read as numbers: `12345678901234567890` becomes 12345678901234567000. */
  private readonly numbers = new Set<number>();

  /** Whether any secret was recorded (the URL rules apply regardless). */
  get hasSecrets(): boolean {
    return this.longest > 0;
  }

  /** A scrubber knowing the secrets of one connection (connection tests, whose causes go to the server log). */
  static forConnection(c: ConnectionFields): SecretScrubber {
    const scrubber = new SecretScrubber();
    scrubber.addConnection(c);
    return scrubber;
  }

  /**
   * Records a secret value; every spelling of it (`formsOf`, `binaryForms`, `base64Cores`, in any letter case) is
   * masked from now on.
   */
  add(value: string | number | null | undefined): void {
    if (value === null || value === undefined) return;
    const text = String(value);
    if (text === "" || text === MASKED_SECRET) return;
    for (const form of formsOf(text)) this.record(form, form.length < SHORT);
    // a short secret's encodings are masked as whole words too ("pQ" is hex 7051: not inside 170512)
    const short = text.length < SHORT;
    this.addEncoded(text, short);
    // the Authorization header a token travels in, echoed encoded as a whole; the raw `Bearer ` stays readable
    this.addEncoded(`Bearer ${text}`, short);
    for (const core of short ? [] : base64Cores(text)) this.record(core, false);
    if (DECIMAL.test(text.trim())) this.numbers.add(Number(text));
  }

  /**
   * Whether `n` is a recorded secret read as a number. A number past a double's precision is shown rounded: its
   * text no longer holds the secret's, yet gives all but its last digits.
   */
  isSecretNumber(n: number): boolean {
    return this.numbers.has(n);
  }

  /** Records only the byte encodings of `text` (hex, base64, base64url); `short` masks them as whole words only. */
  private addEncoded(text: string, short: boolean): void {
    for (const form of binaryForms(text)) this.record(form, short);
  }

  /** Records one spelling to mask (`short`: as a whole word only); what was compiled from the others is dropped. */
  private record(form: string, short: boolean): void {
    (short ? this.short : this.long).add(form);
    if (form.length > this.longest) this.longest = form.length;
    this.matchers = null;
    this.keys.clear();
  }

  /**
   * A value as people read it in previews, dry runs, profiles and DLQ payloads: masked, and bounded
   * (`shownValue`, engine/shown-value.ts); text is masked before it is cut.
   */
  shown<T>(value: T): T {
    return shownValue(value, this) as T;
  }

  /**
   * Rows as people read them (`shown`), with a turn of the event loop whenever a slice is used up (engine/slices.ts):
   * showing a row lists every key it has, nested ones too, so that a row of 60,000 keys takes milliseconds, and what a
   * row costs is not known before it is shown. `signal` stops it (it rejects with its reason).
   */
  async shownRows(rows: readonly Row[], signal?: AbortSignal): Promise<Row[]> {
    const slices = new Slices(signal);
    const shown = new Array<Row>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      shown[i] = this.shown(rows[i]!);
      if (slices.due()) await slices.next();
    }
    return shown;
  }

  /**
   * Records a connection's secrets: password, `login:password` as Basic auth, secret-named `extra` keys, all of
   * `extra.headers`.
   */
  addConnection(c: ConnectionFields): void {
    this.add(c.password);
    if (c.login && c.password) {
      const basic = `${c.login}:${c.password}`;
      this.add(basic);
      this.addEncoded(`Basic ${Buffer.from(basic).toString("base64")}`, false);
    }
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
    let out = this.withoutSecrets(text);
    // the two patterns cannot match text without "://" or "?"/"&": most run text, skipped without a regex pass
    if (out.includes("://"))
      out = out.replace(USERINFO, `$1${MASKED_SECRET}@`).replace(TOKEN_USERINFO, `$1${MASKED_SECRET}@`);
    if (!out.includes("?") && !out.includes("&")) return out;
    return out.replace(QUERY_PARAM, (whole, sep: string, name: string, value: string) =>
      value !== "" && value !== MASKED_SECRET && isSecretName(safeDecode(name))
        ? `${sep}${name}=${MASKED_SECRET}`
        : whole,
    );
  }

  /**
   * `text` with every place that spells a recorded secret replaced by `********`: the union of every spelling's
   * occurrences, overlapping ones included. One pass that took matches in turn let a secret hide another: a secret
   * variable `Bearer ghp_` used up the start of a connection's token `ghp_…` in an echoed header, and the rest of the
   * token was shown (found by a helper's attack).
   */
  private withoutSecrets(text: string): string {
    // nothing recorded (most runs): no pattern to look up, for each of the thousands of values a run's previews show
    if (this.long.size === 0 && this.short.size === 0) return text;
    const { patterns, plain, shortestPlain } = this.compiled();
    if (patterns.length === 0 && plain.length === 0) return text;
    const ranges: [number, number][] = [];
    for (const pattern of patterns) {
      pattern.lastIndex = 0;
      for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
        ranges.push([m.index, m.index + m[0].length]);
        // the next match may start inside this one: every spelling's every occurrence is found
        pattern.lastIndex = m.index + 1;
      }
    }
    if (text.length >= shortestPlain)
      for (const spelling of plain)
        for (let at = text.indexOf(spelling); at !== -1; at = text.indexOf(spelling, at + 1))
          ranges.push([at, at + spelling.length]);
    if (ranges.length === 0) return text;
    ranges.sort((a, b) => a[0] - b[0]);
    let out = "";
    let shownFrom = 0;
    let [start, end] = ranges[0]!;
    for (const [from, to] of ranges.slice(1)) {
      if (from <= end) end = Math.max(end, to);
      else {
        out += text.slice(shownFrom, start) + MASKED_SECRET;
        shownFrom = end;
        [start, end] = [from, to];
      }
    }
    return out + text.slice(shownFrom, start) + MASKED_SECRET + text.slice(end);
  }

  /**
   * The start of `text`, at most `chars` characters of it, masked: masked before it is cut, as far past the cut as
   * the longest spelling of a secret reaches, and never ending in the first characters of a spelling that the cut
   * left incomplete (a secret starting after the cut would otherwise show its first characters wherever masking
   * before it shortened the text), nor in a URL's userinfo that the cut left without its `@` (a password no node
   * recorded, which the URL rule masks only whole).
   */
  maskedPrefix(text: string, chars: number): string {
    if (text.length <= chars) return this.scrub(text).slice(0, chars);
    const window = text.slice(0, chars + this.longest);
    const masked = this.scrub(window);
    const whole = window.length === text.length;
    const shown = masked.slice(0, Math.min(chars, masked.length - (whole ? 0 : this.pieceAtEnd(masked))));
    return shown.replace(OPEN_USERINFO, "$1");
  }

  /**
   * `text` masked, then cut to at most `chars` characters, the last one `…` when it was longer: a cut first could
   * leave a piece of a secret unmasked (node errors, log lines).
   */
  maskedCut(text: string, chars: number): string {
    return text.length <= chars ? this.scrub(text) : `${this.maskedPrefix(text, chars - 1)}…`;
  }

  /**
   * `text` as a node error quotes it (an answer's body, a driver's message): masked, whitespace made single spaces,
   * cut to `chars` characters with `…`. Masked before anything else: an excerpt cut first would show the start of a
   * secret across the cut, and one with its whitespace changed first would no longer match a secret holding some.
   */
  excerpt(text: string, chars: number): string {
    // a generous start: whitespace made single spaces can shrink it a lot
    const start = this.maskedPrefix(text, 8 * chars);
    const shown = this.scrub(start.replace(/\s+/g, " ").trim());
    return shown.length > chars || text.length > 8 * chars ? `${shown.slice(0, chars)}…` : shown;
  }

  /** Characters at the end of `text` that begin a recorded spelling (in any letter case) without completing it. */
  private pieceAtEnd(text: string): number {
    const tail = text.slice(-this.longest).toLowerCase();
    if (tail === "") return 0;
    const last = tail.charCodeAt(tail.length - 1);
    let piece = 0;
    for (const form of [...this.long, ...this.short]) {
      const lower = form.toLowerCase();
      for (let k = Math.min(lower.length - 1, tail.length); k > piece; k--) {
        if (lower.charCodeAt(k - 1) === last && tail.endsWith(lower.slice(0, k))) {
          piece = k;
          break;
        }
      }
    }
    return piece;
  }

  /** `scrub` for an object key: rows repeat their keys, so short ones are remembered. */
  scrubKey(key: string): string {
    let out = this.keys.get(key);
    if (out === undefined) {
      out = this.scrub(key);
      if (this.keys.size < MAX_KEYS_KEPT && key.length <= MAX_KEY_KEPT_CHARS) this.keys.set(key, out);
    }
    return out;
  }

  /**
   * The recorded spellings as case-insensitive patterns (a peer echoing a secret upper- or lower-cased, or hex in
   * capitals), longest first so that where several start, the longest is taken. V8 refuses a pattern of more than
   * some tens of thousands of characters (one 40,000-character secret failed every run that used it, and the
   * error's text, the pattern, went to the server log): spellings are split over patterns of at most
   * MAX_PATTERN_SOURCE characters, and one longer than MAX_PATTERN_SPELLING is looked for as text (as is, lower-
   * and upper-cased: cased here once, not for each value masked, which for a secret of 4,096 characters took a
   * preview of 1,000 values a quarter of a second).
   */
  private compiled(): Matchers {
    if (this.matchers) return this.matchers;
    const sources: string[] = [];
    const plain = new Set<string>();
    for (const form of [...this.long].sort((a, b) => b.length - a.length)) {
      if (form.length > MAX_PATTERN_SPELLING) plain.add(form).add(form.toLowerCase()).add(form.toUpperCase());
      else sources.push(escapeRegExp(form));
    }
    for (const form of this.short) sources.push(`(?<![A-Za-z0-9])${escapeRegExp(form)}(?![A-Za-z0-9])`);
    const patterns: RegExp[] = [];
    let group: string[] = [];
    let size = 0;
    const close = () => {
      if (group.length > 0) patterns.push(new RegExp(group.join("|"), "gi"));
      [group, size] = [[], 0];
    };
    for (const source of sources) {
      if (size + source.length > MAX_PATTERN_SOURCE) close();
      group.push(source);
      size += source.length + 1;
    }
    close();
    const spellings = [...plain];
    const shortestPlain = spellings.reduce((shortest, p) => Math.min(shortest, p.length), Infinity);
    this.matchers = { patterns, plain: spellings, shortestPlain };
    return this.matchers;
  }
}

/** A scrubber that knows no secret: it applies only the URL rules (userinfo passwords, secret-named query values). */
const URL_RULES = new SecretScrubber();

/**
 * `text` without URL userinfo passwords and secret-named query values (`?api_key=…`): the server log's last net, and
 * a connection's `host` as shown to those who may not see its secrets.
 */
export const withoutUrlSecrets = (text: string): string => URL_RULES.scrub(text);

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
