import type { Slices } from "./slices.js";

/** One row of data flowing between nodes: column name → value. */
export type Row = Record<string, unknown>;

/** What a node produces and its downstream nodes receive: named columns (in order) and rows. */
export interface DataSet {
  columns: string[];
  rows: Row[];
}

/**
 * The row's own value of `column` (undefined when the row lacks it): never one it inherits, such as `constructor`
 * (the `Object` function) for a row without a "constructor" column.
 */
export const cell = (row: Row, column: string): unknown => (Object.hasOwn(row, column) ? row[column] : undefined);

/** Sets `out[key]` as an own property, also for the key `__proto__` (an assignment would set the prototype). */
export function ownProperty(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/**
 * A copy of `row` built key by key, to which keys can be added. Not `{ ...row }`: V8 gives a spread copy no room for
 * a new key, so adding one turns the copy into a slow dictionary object, about ten times slower to make and slower to
 * read in every node after.
 *
 * Rows are walked as here wherever a run walks every row (copies, `drop`, previews): `for…in` with an own-key check
 * visits what `Object.keys` lists, in its order, and no key a prototype lends, without an array per row.
 */
export function copyRow(row: Row): Row {
  const out: Row = {};
  for (const k in row) if (Object.hasOwn(row, k)) ownProperty(out, k, row[k]);
  return out;
}

/** A copy of `row` with `key` set to `value` (an own property, in the key's place if the row has it). */
export function withValue(row: Row, key: string, value: unknown): Row {
  const out = copyRow(row);
  ownProperty(out, key, value);
  return out;
}

export const EMPTY_DATASET: DataSet = Object.freeze({ columns: [], rows: [] }) as DataSet;

/** Builds a DataSet from rows, taking the column order from first appearance across the rows. */
export function dataSetFromRows(rows: Row[], columns?: string[]): DataSet {
  if (columns) return { columns, rows };
  const seen = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) seen.add(key);
  return { columns: [...seen], rows };
}

/**
 * The columns of `inputs` in order of first appearance: each input's `columns`, then any key of its rows they do not
 * name (a `code` node's rows may have some); over the rows in slices.
 */
export async function columnsInSlices(inputs: readonly DataSet[], slices: Slices): Promise<string[]> {
  const seen = new Set<string>();
  for (const input of inputs) {
    for (const c of input.columns) seen.add(c);
    await slices.eachOf(input.rows, (row) => {
      for (const c in row) if (Object.hasOwn(row, c)) seen.add(c);
    });
  }
  return [...seen];
}
