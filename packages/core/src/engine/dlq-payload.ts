import type { Row } from "./dataset.js";
import { jsonSizeUpTo } from "./json-size.js";
import { Slices } from "./slices.js";

/** Input rows kept as the DLQ payload of a node that failed for good. */
export const DLQ_SAMPLE_ROWS = 50;
/** Rows one DLQ entry keeps (a `quality` check sending its failing rows can send millions). */
export const DLQ_ENTRY_ROWS = 10_000;
/** About how many characters of JSON one DLQ entry's rows take at most: the DLQ list returns entries whole. */
export const DLQ_ENTRY_CHARS = 4_000_000;
/** Characters of payload JSON one DLQ list answer holds at most: it ends before `limit` once its entries reach it. */
export const DLQ_LIST_CHARS = 32_000_000;

/** What a DLQ entry keeps of the rows sent to it, as people may read them, and a note when some were left out. */
export interface DlqPayload {
  rows: Row[];
  note: string | null;
}

/**
 * The rows a DLQ entry keeps of `rows`, each as people may read it (`shown`: masked and bounded): the first ones,
 * within {@link DLQ_ENTRY_ROWS} and {@link DLQ_ENTRY_CHARS}, and a note for the entry's error when some were left out.
 * Rows are shown and measured one at a time, with a turn of the event loop whenever a slice is used up
 * (engine/slices.ts), and no more are shown once the entry is full: showing a row lists every key it has, and 10,000
 * rows of 1,500 columns held the server for half a second. The rows are read until the promise settles. Nothing
 * stops it: an entry is written for a node that fails as its run is cancelled too.
 */
export async function dlqPayload(rows: readonly Row[], shown: (row: Row) => Row): Promise<DlqPayload> {
  const slices = new Slices();
  const kept: Row[] = [];
  let chars = 0;
  for (const row of rows) {
    if (kept.length >= DLQ_ENTRY_ROWS) break;
    const readable = shown(row);
    chars += jsonSizeUpTo(readable, DLQ_ENTRY_CHARS) + 1;
    if (chars > DLQ_ENTRY_CHARS) break;
    kept.push(readable);
    if (slices.due()) await slices.next();
  }
  if (kept.length === rows.length) return { rows: kept, note: null };
  return {
    rows: kept,
    note:
      `${rows.length - kept.length} of ${rows.length} rows not kept: a DLQ entry keeps at most ` +
      `${DLQ_ENTRY_ROWS} rows and about ${DLQ_ENTRY_CHARS / 1_000_000} MB of them`,
  };
}
