import type { DataSet, Row } from "./dataset.js";
import type { Slices } from "./slices.js";

/** Thrown inside `dataSetJson`'s work to end it: the JSON grew past its limit, or a row cannot be written. */
class NoJson extends Error {}

/** JSON.stringify's text of `value` (in a list: `null` for what it leaves out); NoJson for a cycle or a BigInt. */
const jsonOf = (value: Row | string[] | undefined): string => {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    throw new NoJson();
  }
};

/**
 * The JSON of `data` as a resume reads it back (`{"columns": […], "rows": […]}`), made a piece of rows at a time in
 * `slices`, so that a large data set does not hold the server's thread. Null when it would be longer than `limit`
 * characters (it stops there), or a row or column cannot be written as JSON (a cycle, a BigInt), or it is not a data
 * set.
 */
export async function dataSetJson(data: DataSet, slices: Slices, limit: number): Promise<string | null> {
  if (!Array.isArray(data.columns) || !Array.isArray(data.rows)) return null; // a custom node type's odd output
  const parts: string[] = [];
  try {
    parts.push(`{"columns":${jsonOf(data.columns)},"rows":[`);
    let size = parts[0]!.length + 2;
    await slices.each(data.rows.length, (from, to) => {
      const piece: string[] = [];
      for (let i = from; i < to; i++) piece.push(jsonOf(data.rows[i]));
      const text = (from > 0 ? "," : "") + piece.join(",");
      size += text.length;
      if (size > limit) throw new NoJson();
      parts.push(text);
    });
  } catch (e) {
    if (e instanceof NoJson) return null;
    throw e;
  }
  parts.push("]}");
  return parts.join("");
}
