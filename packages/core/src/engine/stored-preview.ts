import { ownProperty, type Row } from "./dataset.js";

/** A node's preview as the API shows it: the first rows of its output (`GET /runs/{id}/nodes/{node}/preview`). */
export interface Preview {
  node_id: string;
  columns: string[];
  rows: Row[];
}

/**
 * A preview as stored: where every row holds exactly the columns, in their order, each row is kept as the list of
 * its values (`values`), not as an object repeating every key; otherwise as the rows themselves (`rows`), as every
 * preview was stored before. A preview is written for every node of every run, and its keys were about half of it
 * (on PostgreSQL, previews and profiles were 42 % of what a run wrote to the log).
 */
export type StoredPreview = Preview | { node_id: string; columns: string[]; values: unknown[][] };

/** The preview to store for `rows` (already shown: masked and bounded). */
export function storedPreview(nodeId: string, columns: string[], rows: Row[]): StoredPreview {
  const values: unknown[][] = [];
  for (const row of rows) {
    const keys = Object.keys(row);
    if (keys.length !== columns.length || keys.some((key, i) => key !== columns[i])) {
      return { node_id: nodeId, columns, rows };
    }
    const list = keys.map((key) => row[key]);
    // JSON leaves an undefined value (or a function) out of an object but writes null in a list: kept as rows
    if (list.some((v) => v === undefined || typeof v === "function" || typeof v === "symbol")) {
      return { node_id: nodeId, columns, rows };
    }
    values.push(list);
  }
  return { node_id: nodeId, columns, values };
}

/** The preview as shown, from either stored shape. */
export function previewOf(stored: StoredPreview): Preview {
  if (!("values" in stored)) return stored;
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
