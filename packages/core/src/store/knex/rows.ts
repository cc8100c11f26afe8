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
