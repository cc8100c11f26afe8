/** Helpers to read rows the same way from every dialect (booleans as 0/1, big numbers as strings, JSON as text). */
export const toBool = (v: unknown): boolean => v === true || v === 1 || v === "1" || v === "true";
export const toInt = (v: unknown): number => (v == null ? 0 : Number(v));
export const toStr = (v: unknown): string => (v == null ? "" : String(v));
export const toNullableStr = (v: unknown): string | null => (v == null ? null : String(v));

export function parseJson<T>(v: unknown, fallback: T): T {
  if (v == null) return fallback;
  if (typeof v !== "string") return v as T;
  try {
    return JSON.parse(v) as T;
  } catch {
    return fallback;
  }
}

/** Converts a count(*) result row into a number across drivers. */
export function countOf(row: Record<string, unknown> | undefined): number {
  if (!row) return 0;
  const value = Object.values(row)[0];
  return Number(value ?? 0);
}

/** Rows per multi-row INSERT (stays below SQLite's bound-variable limit for the widest table). */
export const INSERT_CHUNK = 200;

/** Bytes of data per multi-row statement: full outputs kept for resume can be large (MySQL's packet limit). */
export const STATEMENT_BYTES = 4 * 1024 * 1024;

/** Consecutive chunks of at most `maxRows` rows and, unless one row alone is larger, STATEMENT_BYTES. */
export function chunksOfSize<T>(rows: readonly T[], sizeOf: (row: T) => number, maxRows = INSERT_CHUNK): T[][] {
  const chunks: T[][] = [];
  let chunk: T[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = sizeOf(row);
    if (chunk.length > 0 && (chunk.length >= maxRows || bytes + size > STATEMENT_BYTES)) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(row);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
