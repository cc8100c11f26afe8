import { createHash } from "node:crypto";
import type { ColumnProfile, NodeProfile } from "../model/run.js";
import { cell, type DataSet } from "./dataset.js";
import { DistinctCounter } from "./distinct-counter.js";
import { SHOWN_ITEMS, shownValue } from "./shown-value.js";

/**
 * A binary value as a distinct-count key: its length and digest (JSON would write each byte as a number, several times
 * the value's size: 300 MB of text for a 100 MB blob).
 */
const binaryKey = (v: ArrayBufferView) =>
  `binary ${v.byteLength} ${createHash("sha256")
    .update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength))
    .digest("base64")}`;

export type { ColumnProfile, NodeProfile };

function typeOf(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  if (typeof v === "bigint") return "integer";
  if (v instanceof Date) return "date";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

const comparable = (v: unknown): v is number | string => typeof v === "number" || typeof v === "string";

/**
 * Profiles already computed per data set: nodes that pass their input through (sinks, quality without failures,
 * notify) hand on the very same DataSet object, so its profile is computed once.
 */
const computed = new WeakMap<DataSet, NodeProfile>();

/**
 * Profile of a node's whole output: per column type, nulls, distinct values (exact up to 20,000, estimated above —
 * see DistinctCounter), min/max and the numeric mean.
 */
export function profileDataSet(nodeId: string, data: DataSet): NodeProfile {
  const known = computed.get(data);
  if (known && known.row_count === data.rows.length) return { ...known, node_id: nodeId };
  const profile = computeProfile(nodeId, data);
  computed.set(data, profile);
  return profile;
}

/**
 * Columns profiled, the first ones: the work is columns × rows, on the server's thread. 60,000 rows each with a key
 * of its own made 60,000 columns, and 51 s of profiling (found by a helper's attack). As many as a row shows keys.
 */
export const MAX_PROFILED_COLUMNS = SHOWN_ITEMS;

function computeProfile(nodeId: string, data: DataSet): NodeProfile {
  const total = data.rows.length;
  const columns = data.columns.slice(0, MAX_PROFILED_COLUMNS).map((name): ColumnProfile => {
    let nulls = 0;
    let sum = 0;
    let numeric = 0;
    let min: number | string | undefined;
    let max: number | string | undefined;
    const distinct = new DistinctCounter();
    const types = new Set<string>();
    let lastType = "";
    for (const row of data.rows) {
      const v = cell(row, name);
      if (v === null || v === undefined) {
        nulls++;
        continue;
      }
      const t = typeOf(v);
      if (t !== lastType) {
        types.add(t);
        lastType = t;
      }
      // a list or object by the JSON of what a person is shown of it (bounded: a 100 MB document is not written out)
      distinct.add(typeof v !== "object" ? v : ArrayBuffer.isView(v) ? binaryKey(v) : JSON.stringify(shownValue(v)));
      if (typeof v === "number" && Number.isFinite(v)) {
        sum += v;
        numeric++;
      }
      if (comparable(v)) {
        if (min === undefined || (typeof min === typeof v && v < min)) min = v;
        if (max === undefined || (typeof max === typeof v && v > max)) max = v;
      }
    }
    const type =
      types.size === 0
        ? "null"
        : types.size === 1
          ? [...types][0]!
          : types.has("number") && types.has("integer") && types.size === 2
            ? "number"
            : "mixed";
    return {
      name,
      type,
      null_count: nulls,
      null_pct: total === 0 ? 0 : Math.round((nulls / total) * 10000) / 100,
      distinct_count: distinct.count,
      min: min ?? null,
      max: max ?? null,
      mean: numeric > 0 ? sum / numeric : null,
    };
  });
  return { node_id: nodeId, row_count: total, columns };
}
