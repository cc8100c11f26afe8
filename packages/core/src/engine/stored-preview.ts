import type { NodePreview } from "../model/run.js";
import { ownProperty, type Row } from "./dataset.js";

/**
 * A preview as stored: where every row is a plain object holding exactly the columns, in their order, each row is
 * kept as the list of its values (`values`), not as an object repeating every key; otherwise as the rows themselves
 * (`rows`), as every preview was stored before. A preview is written for every node of every run, and its keys were
 * about two fifths of it (on PostgreSQL, previews and profiles were 42 % of what a run wrote to the log).
 */
export type StoredPreview = NodePreview | { node_id: string; columns: string[]; values: unknown[][] };

/** The preview to store for `rows` (already shown: masked and bounded). */
export function storedPreview(nodeId: string, columns: string[], rows: Row[]): StoredPreview {
  const values: unknown[][] = [];
  for (const row of rows) {
    const list = valuesInOrder(row, columns);
    if (!list) return { node_id: nodeId, columns, rows };
    values.push(list);
  }
  return { node_id: nodeId, columns, values };
}

/**
 * The row's values in the order of `columns`, when its JSON as a list of them reads back as the same object: a plain
 * object whose keys are the columns, in order, none of whose values JSON writes differently in a list than as a
 * property. JSON leaves out of an object, but writes as null in a list, an undefined value, a function or a symbol;
 * and a value's own `toJSON` is given its property's name, which in a list is the index (a Date's and a Buffer's
 * ignore it). Null otherwise (a custom node type's row may be anything).
 */
function valuesInOrder(row: unknown, columns: readonly string[]): unknown[] | null {
  if (typeof row !== "object" || row === null) return null;
  const proto = Object.getPrototypeOf(row) as unknown;
  if (proto !== Object.prototype && proto !== null) return null;
  // one loop, no closures, own keys walked as copyRow walks them (engine/dataset.ts): this runs for every preview row
  const list: unknown[] = new Array(columns.length);
  let i = 0;
  for (const key in row) {
    if (!Object.hasOwn(row, key)) continue;
    const value = (row as Row)[key];
    if (i >= columns.length || key !== columns[i] || !sameInList(value)) return null;
    list[i++] = value;
  }
  return i === columns.length ? list : null;
}

function sameInList(value: unknown): boolean {
  if (value === undefined || typeof value === "function" || typeof value === "symbol" || typeof value === "bigint")
    return false;
  if (typeof value !== "object" || value === null) return true;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  return toJSON === undefined || toJSON === Date.prototype.toJSON || toJSON === Buffer.prototype.toJSON;
}

/** The preview as shown, from either stored shape. */
export function previewOf(stored: StoredPreview): NodePreview {
  if (typeof stored !== "object" || stored === null || !("values" in stored)) return stored;
  const { node_id, columns, values } = stored;
  return {
    node_id,
    columns,
    rows: values.map((list) => {
      const row: Row = {};
      columns.forEach((column, i) => ownProperty(row, column, list[i]));
      return row;
    }),
  };
}
