import { ownProperty } from "./dataset.js";

/** Longest text shown in a preview, dry run, profile or DLQ payload; the rest is cut and counted. */
export const SHOWN_TEXT_CHARS = 4000;
/** Largest binary value shown as is (as Node writes a Buffer in JSON); a larger one is described. */
export const SHOWN_BINARY_BYTES = 1024;
/** Most items of a list, or keys of an object, shown. */
export const SHOWN_ITEMS = 1000;

/**
 * A value as previews, dry runs, profiles and DLQ payloads show it: what a person reads, bounded, so that one cell of
 * 100 MB (a blob, a document) is not turned into JSON on the server's thread, stored, and sent to every reader of the
 * preview. Text over {@link SHOWN_TEXT_CHARS} characters keeps its start and says how long it was; a binary value over
 * {@link SHOWN_BINARY_BYTES} bytes becomes `<binary: N bytes>`; a list or object keeps its first {@link SHOWN_ITEMS}
 * items or keys, then says how many there were. Everything else is returned as it is (the same object when nothing
 * in it was cut).
 */
export function shownValue(value: unknown): unknown {
  if (typeof value === "string")
    return value.length <= SHOWN_TEXT_CHARS
      ? value
      : `${value.slice(0, SHOWN_TEXT_CHARS)}… (${value.length.toLocaleString("en-US")} characters)`;
  if (typeof value !== "object" || value === null || value instanceof Date) return value;
  if (ArrayBuffer.isView(value))
    return value.byteLength <= SHOWN_BINARY_BYTES
      ? value
      : `<binary: ${value.byteLength.toLocaleString("en-US")} bytes>`;
  if (Array.isArray(value)) {
    let changed = value.length > SHOWN_ITEMS;
    const out: unknown[] = [];
    for (let i = 0; i < Math.min(value.length, SHOWN_ITEMS); i++) {
      const item = shownValue(value[i]);
      changed ||= item !== value[i];
      out.push(item);
    }
    if (value.length > SHOWN_ITEMS) out.push(`… (${value.length.toLocaleString("en-US")} items)`);
    return changed ? out : value;
  }
  // an object that says how it is written as JSON (a decimal type, say) is left to say so
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return value;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let changed = keys.length > SHOWN_ITEMS;
  const out: Record<string, unknown> = {};
  for (const key of keys.slice(0, SHOWN_ITEMS)) {
    const item = shownValue(record[key]);
    changed ||= item !== record[key];
    ownProperty(out, key, item);
  }
  if (keys.length > SHOWN_ITEMS) ownProperty(out, "…", `${keys.length.toLocaleString("en-US")} keys`);
  return changed ? out : value;
}

/** Rows as previews, dry runs and DLQ payloads show them ({@link shownValue} of each). */
export const shownRows = <T>(rows: readonly T[]): T[] => rows.map((row) => shownValue(row) as T);
