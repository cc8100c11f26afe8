import { createHash } from "node:crypto";
import type { ColumnProfile, NodeProfile } from "../model/run.js";
import { cell, type DataSet, type Row } from "./dataset.js";
import { DistinctCounter } from "./distinct-counter.js";
import { SHOWN_ITEMS, shownValue } from "./shown-value.js";
import { fitsOneGo, Slices } from "./slices.js";

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

/** One column's profile, made from the rows it is given (`add`), in as many goes as it takes. */
class ColumnProfiler {
  private nulls = 0;
  private sum = 0;
  private numeric = 0;
  private min: number | string | undefined;
  private max: number | string | undefined;
  private readonly distinct = new DistinctCounter();
  private readonly types = new Set<string>();
  private lastType = "";

  constructor(private readonly name: string) {}

  /** Adds `rows[from]` to `rows[to - 1]`. */
  add(rows: readonly Row[], from: number, to: number): void {
    const name = this.name;
    for (let i = from; i < to; i++) {
      const v = cell(rows[i]!, name);
      if (v === null || v === undefined) {
        this.nulls++;
        continue;
      }
      const t = typeOf(v);
      if (t !== this.lastType) {
        this.types.add(t);
        this.lastType = t;
      }
      // a list or object by the JSON of what a person is shown of it (bounded: a 100 MB document is not written out)
      this.distinct.add(
        typeof v !== "object" ? v : ArrayBuffer.isView(v) ? binaryKey(v) : JSON.stringify(shownValue(v)),
      );
      if (typeof v === "number" && Number.isFinite(v)) {
        this.sum += v;
        this.numeric++;
      }
      if (comparable(v)) {
        if (this.min === undefined || (typeof this.min === typeof v && v < this.min)) this.min = v;
        if (this.max === undefined || (typeof this.max === typeof v && v > this.max)) this.max = v;
      }
    }
  }

  profile(total: number): ColumnProfile {
    const { types } = this;
    const type =
      types.size === 0
        ? "null"
        : types.size === 1
          ? [...types][0]!
          : types.has("number") && types.has("integer") && types.size === 2
            ? "number"
            : "mixed";
    return {
      name: this.name,
      type,
      null_count: this.nulls,
      null_pct: total === 0 ? 0 : Math.round((this.nulls / total) * 10000) / 100,
      distinct_count: this.distinct.count,
      min: this.min ?? null,
      max: this.max ?? null,
      mean: this.numeric > 0 ? this.sum / this.numeric : null,
    };
  }
}

/**
 * Columns profiled, the first ones: the work is columns × rows, on the server's thread. 60,000 rows each with a key
 * of its own made 60,000 columns, and 51 s of profiling (found by a helper's attack). As many as a row shows keys.
 */
export const MAX_PROFILED_COLUMNS = SHOWN_ITEMS;

/**
 * Profile of a node's whole output: per column type, nulls, distinct values (exact up to 20,000, estimated above —
 * see DistinctCounter), min/max and the numeric mean.
 */
export function profileDataSet(nodeId: string, data: DataSet): NodeProfile {
  const known = rememberedFor(nodeId, data);
  if (known) return known;
  const columns = profiledColumns(data);
  for (const column of columns) column.add(data.rows, 0, data.rows.length);
  return remember(nodeId, data, columns);
}

/**
 * Whether `data` is small enough to profile in one go (`profileDataSet`; engine/slices.ts, fitsOneGo): few values, none
 * of them a list or an object. Such a value is counted by the JSON of what a person is shown of it, which lists every
 * key it has: 50 rows each holding an object of 20,000 keys took 0.25 s.
 */
export function profiledAtOnce({ rows, columns }: DataSet): boolean {
  const profiled = Math.min(columns.length, MAX_PROFILED_COLUMNS);
  if (!fitsOneGo(rows.length, profiled)) return false;
  for (const row of rows)
    for (let c = 0; c < profiled; c++) {
      const v = cell(row, columns[c]!);
      if (typeof v === "object" && v !== null && !(v instanceof Date)) return false;
    }
  return true;
}

/**
 * `profileDataSet` without holding the server's thread for longer than a slice (engine/slices.ts): the same profile,
 * made a piece of a column's rows at a time (Slices.each), with a turn of the event loop whenever a slice is used up.
 * Rejects with `signal`'s reason once it is aborted (a cancel of the run, a shutdown).
 */
export async function profileInSlices(nodeId: string, data: DataSet, signal?: AbortSignal): Promise<NodeProfile> {
  const known = rememberedFor(nodeId, data);
  if (known) return known;
  const columns = profiledColumns(data);
  const slices = new Slices(signal);
  for (const column of columns) await slices.each(data.rows.length, (from, to) => column.add(data.rows, from, to));
  return remember(nodeId, data, columns);
}

/** The profile made already for `data` (the same rows still), as `nodeId`'s. */
function rememberedFor(nodeId: string, data: DataSet): NodeProfile | null {
  const known = computed.get(data);
  return known && known.row_count === data.rows.length ? { ...known, node_id: nodeId } : null;
}

const profiledColumns = (data: DataSet) =>
  data.columns.slice(0, MAX_PROFILED_COLUMNS).map((name) => new ColumnProfiler(name));

function remember(nodeId: string, data: DataSet, columns: readonly ColumnProfiler[]): NodeProfile {
  const total = data.rows.length;
  const profile = { node_id: nodeId, row_count: total, columns: columns.map((c) => c.profile(total)) };
  computed.set(data, profile);
  return profile;
}
