import { jsonDigest } from "../../content-digest.js";
import { cell, type Row } from "../dataset.js";

/** Whether a cell holds no value. */
export const isNull = (v: unknown) => v === null || v === undefined;

/**
 * The order of two cells for `sort` and `aggregate`'s min and max: nulls last, numbers as numbers, anything else by
 * its text.
 */
export const compareValues = (a: unknown, b: unknown): number => {
  if (isNull(a) && isNull(b)) return 0;
  if (isNull(a)) return 1; // nulls last
  if (isNull(b)) return -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  // each as text once: an array's text is made anew at every String()
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * The longest text V8 hashes by its characters (`String::kMaxHashCalcLength`): a longer one is hashed by its length
 * alone, so a Set or Map of such texts of one length compares each new one with every one before it.
 */
const LONGEST_HASHED_TEXT = 16_383;

/**
 * A key that tells rows apart by the given columns (values of any type): their JSON, or for JSON past
 * `LONGEST_HASHED_TEXT` its SHA-256 (which no JSON text begins with `#`), so that keys of rows of long texts cost a Set
 * or Map what short ones do.
 */
export const keyOf = (row: Row, columns: readonly string[]) => {
  const json = JSON.stringify(columns.map((c) => cell(row, c) ?? null));
  return json.length > LONGEST_HASHED_TEXT ? `#${jsonDigest(json)}` : json;
};
