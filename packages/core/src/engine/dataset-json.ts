import type { DataSet, Row } from "./dataset.js";
import type { Slices } from "./slices.js";

/** Thrown inside `dataSetJsonParts`' work to end it: the JSON grew past its limit, or a row cannot be written. */
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
 * A data set's JSON as a resume reads it back, in parts: `columns`, the JSON of its columns, and `rows`, JSON lists of
 * its rows in order, each of about `partChars` characters or fewer (a row is never split; one longer than that is a
 * part of its own), so that each part can be written in a statement of its own.
 */
export interface DataSetJsonParts {
  columns: string;
  rows: string[];
}

/**
 * `data`'s JSON in parts (DataSetJsonParts), made a piece of rows at a time in `slices`, so that a large data set
 * does not hold the server's thread. Null when it would be longer than `limit` characters in all (it stops there), or
 * a row or column cannot be written as JSON (a cycle, a BigInt), or it is not a data set.
 */
export async function dataSetJsonParts(
  data: DataSet,
  slices: Slices,
  limit: number,
  partChars: number,
): Promise<DataSetJsonParts | null> {
  if (!Array.isArray(data.columns) || !Array.isArray(data.rows)) return null; // a custom node type's odd output
  const rows: string[] = [];
  let part: string[] = [];
  let partSize = 0;
  const endPart = () => {
    rows.push(`[${part.join(",")}]`);
    part = [];
    partSize = 0;
  };
  try {
    const columns = jsonOf(data.columns);
    // what `{"columns":…,"rows":[…]}` holds besides the rows, and a comma between two rows
    let size = columns.length + 22;
    await slices.each(data.rows.length, (from, to) => {
      for (let i = from; i < to; i++) {
        const row = jsonOf(data.rows[i]);
        size += row.length + (i > 0 ? 1 : 0);
        if (size > limit) throw new NoJson();
        // the part as JSON is partSize + 1 characters: its rows, a comma after each but the last, and its brackets
        if (partSize > 0 && partSize + row.length + 2 > partChars) endPart();
        part.push(row);
        partSize += row.length + 1;
      }
    });
    if (part.length > 0 || rows.length === 0) endPart();
    return { columns, rows };
  } catch (e) {
    if (e instanceof NoJson) return null;
    throw e;
  }
}
