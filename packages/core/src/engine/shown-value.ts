import { MASKED_SECRET } from "../model/connection.js";
import { ownProperty } from "./dataset.js";

/** Longest text shown in a preview, dry run, profile or DLQ payload; the rest is cut and counted. */
export const SHOWN_TEXT_CHARS = 4000;
/** Longest object key shown (a column name); the rest is cut and counted. */
export const SHOWN_KEY_CHARS = 200;
/** Largest binary value shown as is (as Node writes a Buffer in JSON); a larger one is described. */
export const SHOWN_BINARY_BYTES = 1024;
/** Most items of a list, or keys of an object, shown. */
export const SHOWN_ITEMS = 1000;
/** Characters of text and items shown of one value (a row, a profile's column) in all: nesting cannot multiply it. */
export const SHOWN_BUDGET = 100_000;
/** Deepest nesting shown; a deeper value is shown as `…`. */
const SHOWN_DEPTH = 32;

/** How text is masked before it is cut (a run's scrubber), so that a secret across the cut leaves no piece behind. */
export interface TextMask {
  scrub(text: string): string;
  scrubKey(key: string): string;
  /** At most `chars` characters of the start of `text`, masked before they were cut (SecretScrubber). */
  maskedPrefix(text: string, chars: number): string;
  /** Whether it knows a secret: numbers and binary values are masked only then. */
  readonly hasSecrets: boolean;
  /** Whether `n` is a secret read as a number (its digits past a double's precision rounded away). */
  isSecretNumber(n: number): boolean;
}

/**
 * A value as previews, dry runs, profiles and DLQ payloads show it: what a person reads, bounded, so that one cell of
 * 100 MB (a blob, a document) is not turned into JSON on the server's thread, stored, and sent to every reader of the
 * preview; and masked, when given the run's `mask`, before it is cut.
 *
 * Text over {@link SHOWN_TEXT_CHARS} characters (a key over {@link SHOWN_KEY_CHARS}) keeps its start and says how long
 * it was; a binary value over {@link SHOWN_BINARY_BYTES} bytes becomes `<binary: N bytes>`; a list or object keeps its
 * first {@link SHOWN_ITEMS} items or keys, then says how many there were; what lies deeper than 32 levels, or beyond
 * {@link SHOWN_BUDGET} characters and items of the whole value, is `…`. A value that says how it is written as JSON (a
 * decimal type) is shown as that. The value itself is not changed.
 */
export function shownValue(value: unknown, mask?: TextMask): unknown {
  return show(value, { left: SHOWN_BUDGET }, 0, mask);
}

interface Budget {
  left: number;
}

const count = (n: number) => n.toLocaleString("en-US");

function show(value: unknown, budget: Budget, depth: number, mask: TextMask | undefined): unknown {
  if (typeof value === "string") return shownText(value, SHOWN_TEXT_CHARS, budget, mask, false);
  // a secret can arrive as a number (a PIN rendered into a JSON body unquoted)
  if (typeof value === "number" || typeof value === "bigint") {
    if (!mask?.hasSecrets) return value;
    const secret =
      (typeof value === "number" && mask.isSecretNumber(value)) || mask.scrub(String(value)) !== String(value);
    return secret ? MASKED_SECRET : value;
  }
  if (typeof value !== "object" || value === null || value instanceof Date) return value;
  if (ArrayBuffer.isView(value)) {
    // shown as its bytes (JSON: a list of numbers), so masked as the text those bytes hold, else described
    if (value.byteLength > SHOWN_BINARY_BYTES || (mask?.hasSecrets && holdsSecret(value, mask)))
      return `<binary: ${count(value.byteLength)} bytes>`;
    budget.left -= value.byteLength;
    return value;
  }
  if (depth >= SHOWN_DEPTH || budget.left <= 0) return "…";
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") return show(toJSON.call(value) as unknown, budget, depth + 1, mask);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      if (i >= SHOWN_ITEMS || budget.left <= 0) {
        out.push(`… (${count(value.length)} items)`);
        break;
      }
      budget.left--;
      out.push(show(value[i], budget, depth + 1, mask));
    }
    return out;
  }
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  // own keys walked as copyRow walks them (engine/dataset.ts); those not shown are counted in the same walk: a second
  // one (Object.keys) doubled what a row of 60,000 columns costs, most of which is V8 listing its keys at all
  let shown = 0;
  let keys = 0;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    keys++;
    if (shown >= SHOWN_ITEMS || budget.left <= 0) continue;
    budget.left--;
    shown++;
    ownProperty(out, shownText(key, SHOWN_KEY_CHARS, budget, mask, true), show(record[key], budget, depth + 1, mask));
  }
  if (keys > shown) ownProperty(out, "…", `${count(keys)} keys`);
  return out;
}

/** Whether the bytes of `view`, read as UTF-8 text, hold a secret `mask` masks. */
function holdsSecret(view: ArrayBufferView, mask: TextMask): boolean {
  const text = Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString("utf8");
  return mask.scrub(text) !== text;
}

/** `text` masked, then cut to `limit` characters (or what is left of the budget), saying how long it was. */
function shownText(text: string, limit: number, budget: Budget, mask: TextMask | undefined, key: boolean): string {
  const allowed = Math.max(0, Math.min(limit, budget.left));
  if (text.length <= allowed) {
    budget.left -= text.length;
    // no closure for this: it is called for every key and text value of every preview row
    return !mask ? text : key ? mask.scrubKey(text) : mask.scrub(text);
  }
  budget.left -= allowed;
  const start = mask ? mask.maskedPrefix(text, allowed) : text.slice(0, allowed);
  return `${start}… (${count(text.length)} characters)`;
}
