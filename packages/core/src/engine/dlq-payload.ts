import type { Row } from "./dataset.js";
import { jsonSizeUpTo } from "./json-size.js";

/** Input rows kept as the DLQ payload of a node that failed for good. */
export const DLQ_SAMPLE_ROWS = 50;
/** Rows one DLQ entry keeps (a `quality` check sending its failing rows can send millions). */
export const DLQ_ENTRY_ROWS = 10_000;
/** About how many characters of JSON one DLQ entry's rows take at most: the DLQ list returns entries whole. */
export const DLQ_ENTRY_CHARS = 4_000_000;
/** Characters of payload JSON one DLQ list answer holds at most: it ends before `limit` once its entries reach it. */
export const DLQ_LIST_CHARS = 32_000_000;

/**
 * The rows a DLQ entry keeps of `rows` (already as people may read them): the first ones, within
 * {@link DLQ_ENTRY_ROWS} and {@link DLQ_ENTRY_CHARS}, and a note for the entry's error when some were left out.
 * `total`: how many rows were sent, when `rows` are only the first of them.
 */
export function dlqPayload(rows: readonly Row[], total = rows.length): { rows: Row[]; note: string | null } {
  let chars = 0;
  let kept = 0;
  for (; kept < rows.length && kept < DLQ_ENTRY_ROWS; kept++) {
    chars += jsonSizeUpTo(rows[kept], DLQ_ENTRY_CHARS) + 1;
    if (chars > DLQ_ENTRY_CHARS) break;
  }
  if (kept === total) return { rows: [...rows], note: null };
  return {
    rows: rows.slice(0, kept),
    note:
      `${total - kept} of ${total} rows not kept: a DLQ entry keeps at most ` +
      `${DLQ_ENTRY_ROWS} rows and about ${DLQ_ENTRY_CHARS / 1_000_000} MB of them`,
  };
}
