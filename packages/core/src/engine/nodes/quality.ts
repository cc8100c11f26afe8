import { SluiceError } from "../../errors.js";
import { cell, type Row } from "../dataset.js";
import { keyOf } from "./cell-values.js";
import { defineNodeType } from "../node-type.js";
import { Slices } from "../slices.js";
import { RE2JS } from "re2js";
import { z } from "zod";
import { loose } from "./config-parts.js";

type Check = (typeof qualityConfig)["_zod"]["output"]["checks"][number];

/** Longest pattern, and highest count of a repetition: each multiplies what matching one character costs. */
const MAX_PATTERN_CHARS = 1000;
const MAX_REPEAT = 100;

/**
 * A user's pattern, compiled by RE2 (re2js), which matches in time linear in the text: JavaScript's engine
 * backtracks, and one pattern like `^(a+)+$` on a row of 40 characters held the server's thread (this node runs on
 * it) for minutes. RE2 syntax is Perl's without lookaround and backreferences.
 */
function userPattern(pattern: string): RE2JS {
  if (pattern.length > MAX_PATTERN_CHARS)
    throw new SluiceError("invalid", `regex check: a pattern has at most ${MAX_PATTERN_CHARS} characters`);
  for (const [, low, high] of pattern.matchAll(/\{(\d+)(?:,(\d*))?\}/g))
    if (Number(low) > MAX_REPEAT || Number(high || 0) > MAX_REPEAT)
      throw new SluiceError("invalid", `regex check: a counted repetition ({n,m}) goes up to ${MAX_REPEAT}`);
  try {
    return RE2JS.compile(pattern);
  } catch (e) {
    throw new SluiceError("invalid", `regex check: invalid pattern: ${(e as Error).message}`);
  }
}

/** Why `pattern` does not compile, or null. */
function patternError(pattern: string): string | null {
  try {
    userPattern(pattern);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

/** A value no check but `not_null` looks at: null, missing or empty text. */
const isBlank = (v: unknown) => v === null || v === undefined || v === "";
/**
 * A value as text: binary as its UTF-8 text, a date as ISO, another list or object as its JSON (one with its own
 * `toString` key has no text of its own; String() would throw).
 */
const text = (v: unknown): string => {
  if (v === null || typeof v !== "object") return String(v);
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString();
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? "Invalid Date" : v.toISOString();
  return JSON.stringify(v);
};
const num = (v: unknown) =>
  v instanceof Date ? v.getTime() : v !== null && typeof v === "object" ? Number(text(v)) : Number(v);
const cmp = (a: unknown, b: unknown) =>
  typeof b === "number" ? num(a) - b : text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0;

function typeMatches(value: unknown, expected: string): boolean {
  switch (expected) {
    case "number":
      return typeof value === "number" ? Number.isFinite(value) : value !== "" && Number.isFinite(num(value));
    case "integer":
      return Number.isInteger(num(value));
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean" || value === 0 || value === 1;
    case "date":
      return !Number.isNaN(new Date(text(value)).getTime());
    default:
      return true;
  }
}

/**
 * Runs one check: the indexes of the rows that fail it (row-level checks), or a table-level failure message. Every
 * check goes over the rows in slices (engine/slices.ts): over 300,000 rows, `unique` alone held the server's thread
 * for a third of a second.
 */
async function runCheck(
  check: Check,
  rows: Row[],
  now: Date,
  slices: Slices,
): Promise<{ bad: Set<number>; tableError?: string }> {
  const bad = new Set<number>();
  const column = check.column;
  const need = () => {
    if (!column) throw new SluiceError("invalid", `${check.type} check needs a column`);
    return column;
  };
  switch (check.type) {
    case "not_null": {
      const cols = check.columns ?? [need()];
      await slices.eachOf(rows, (r, i) => cols.some((c) => isBlank(cell(r, c))) && bad.add(i));
      break;
    }
    case "unique": {
      const cols = check.columns ?? [need()];
      const seen = new Set<string>();
      await slices.eachOf(rows, (r, i) => {
        const k = keyOf(r, cols);
        if (seen.has(k)) bad.add(i);
        else seen.add(k);
      });
      break;
    }
    case "min":
    case "max":
    case "range": {
      const c = need();
      await slices.eachOf(rows, (r, i) => {
        const v = cell(r, c);
        if (isBlank(v)) return;
        if ((check.type === "min" || check.type === "range") && check.min !== undefined && cmp(v, check.min) < 0)
          bad.add(i);
        if ((check.type === "max" || check.type === "range") && check.max !== undefined && cmp(v, check.max) > 0)
          bad.add(i);
      });
      break;
    }
    case "regex": {
      const c = need();
      if (!check.pattern) throw new SluiceError("invalid", "regex check needs a pattern");
      const re = userPattern(check.pattern);
      // RE2 is linear in the text, but each character costs in proportion to the pattern (a 360-character pattern
      // of counted repeats over 100,000 characters held the thread for 2.3 s): pieces are sized by time, not rows
      await slices.eachOf(rows, (r, i) => {
        const v = cell(r, c);
        if (!isBlank(v) && !re.matcher(text(v)).find()) bad.add(i);
      });
      break;
    }
    case "accepted_values": {
      const c = need();
      const allowed = new Set((check.values ?? []).map((v) => JSON.stringify(v)));
      await slices.eachOf(rows, (r, i) => {
        const v = cell(r, c);
        if (!isBlank(v) && !allowed.has(JSON.stringify(v))) bad.add(i);
      });
      break;
    }
    case "type_check": {
      const c = need();
      const expected = check.expected_type ?? "string";
      await slices.eachOf(rows, (r, i) => {
        const v = cell(r, c);
        if (!isBlank(v) && !typeMatches(v, expected)) bad.add(i);
      });
      break;
    }
    case "row_count": {
      const n = rows.length;
      if (check.min !== undefined && n < num(check.min))
        return { bad, tableError: `row_count ${n} < min ${check.min}` };
      if (check.max !== undefined && n > num(check.max))
        return { bad, tableError: `row_count ${n} > max ${check.max}` };
      break;
    }
    case "freshness": {
      const c = need();
      const maxAgeMs = (check.max_age_hours ?? 24) * 3_600_000;
      // a loop, not Math.max(...times): spread arguments overflow the stack past about 100,000 rows
      let newest = -Infinity;
      await slices.eachOf(rows, (r) => {
        const t = new Date(text(cell(r, c))).getTime();
        if (t > newest) newest = t;
      });
      if (!Number.isFinite(newest) || now.getTime() - newest > maxAgeMs) {
        return { bad, tableError: `freshness: newest ${c} is older than ${check.max_age_hours ?? 24} h` };
      }
      break;
    }
  }
  return { bad };
}

const describe = (check: Check) =>
  `${check.type}${check.column ? `(${check.column})` : check.columns ? `(${check.columns.join(",")})` : ""}`;

export const QUALITY_CHECK_TYPES = [
  "not_null",
  "unique",
  "min",
  "max",
  "range",
  "regex",
  "accepted_values",
  "row_count",
  "type_check",
  "freshness",
] as const;

export const qualityConfig = loose({
  checks: z.array(
    z.looseObject({
      type: z.enum(QUALITY_CHECK_TYPES, { error: `check type must be one of ${QUALITY_CHECK_TYPES.join(", ")}` }),
      column: z.string().min(1).optional(),
      columns: z.array(z.string().min(1)).optional(),
      min: z.union([z.number(), z.string()]).optional(),
      max: z.union([z.number(), z.string()]).optional(),
      pattern: z
        .string()
        .superRefine((p, ctx) => {
          const error = patternError(p);
          if (error) ctx.addIssue({ code: "custom", message: error });
        })
        .optional(),
      values: z.array(z.unknown()).optional(),
      expected_type: z.enum(["number", "integer", "string", "boolean", "date"]).optional(),
      max_age_hours: z.number().positive().optional(),
    }),
    { error: "checks must be an array" },
  ),
  on_failure: z.enum(["block", "warn", "dlq"]).optional(),
});

/**
 * `quality`: data checks over the input. `on_failure`: `block` (default) fails the node naming the failed checks;
 * `warn` logs them and passes every row on; `dlq` sends the failing rows to the dead-letter queue and passes the rest.
 */
export const qualityNode = defineNodeType({
  type: "quality",
  configSchema: qualityConfig,
  async run(ctx, config, inputs) {
    const input = inputs[0] ?? { columns: [], rows: [] };
    const failed: string[] = [];
    const badRows = new Set<number>();
    const now = new Date();
    const slices = new Slices(ctx.signal);
    for (const check of config.checks) {
      const { bad, tableError } = await runCheck(check, input.rows, now, slices);
      if (tableError) failed.push(tableError);
      if (bad.size) failed.push(`${describe(check)}: ${bad.size} row(s) failed`);
      for (const i of bad) badRows.add(i);
    }
    if (failed.length === 0) {
      return { output: input, summary: `quality: ${config.checks.length} checks passed on ${input.rows.length} rows` };
    }
    const summary = `quality checks failed: ${failed.join("; ")}`;
    const mode = config.on_failure ?? "block";
    if (mode === "block") throw new SluiceError("unprocessable", summary);
    if (mode === "warn") {
      ctx.log("warning", summary);
      return { output: input };
    }
    const rejected: Row[] = [];
    const passed: Row[] = [];
    await slices.eachOf(input.rows, (r, i) => (badRows.has(i) ? rejected : passed).push(r));
    if (rejected.length) await ctx.deadLetter(rejected, summary);
    ctx.log("warning", `${summary}; ${rejected.length} row(s) sent to the dead-letter queue`);
    return { output: { columns: input.columns, rows: passed } };
  },
});
