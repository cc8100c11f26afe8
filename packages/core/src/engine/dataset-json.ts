import type { DataSet, Row } from "./dataset.js";
import type { Slices } from "./slices.js";

/** Thrown inside `dataSetJson`'s work to end it: the JSON grew past its limit, or a row cannot be written. */
class NoJson extends Error {}

const rowJson = (row: Row | undefined): string => {
  try {
    return JSON.stringify(row) ?? "null";
  } catch {
    throw new NoJson(); // a cycle, a BigInt
  }
};

/**
 * The JSON of `data` as a resume reads it back (`{"columns": […], "rows": […]}`), made a piece of rows at a time in
 * `slices`, so that a large data set does not hold the server's thread. Null when it would be longer than `limit`
 * characters (it stops there), or a row cannot be written as JSON (a cycle, a BigInt).
 */
export async function dataSetJson(data: DataSet, slices: Slices, limit: number): Promise<string | null> {
  const head = `{"columns":${JSON.stringify(data.columns)},"rows":[`;
  const parts = [head];
  let size = head.length + 2;
  try {
    await slices.each(data.rows.length, (from, to) => {
      const piece: string[] = [];
      for (let i = from; i < to; i++) piece.push(rowJson(data.rows[i]));
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
