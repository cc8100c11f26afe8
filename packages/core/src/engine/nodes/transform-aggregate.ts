import { cell, ownProperty, type Row } from "../dataset.js";
import type { Slices } from "../slices.js";
import { compareValues, isNull, keyOf } from "./cell-values.js";
import type { TransformRule } from "./transform-rules.js";

type AggregateRule = Extract<TransformRule, { type: "aggregate" }>;
type Aggregation = AggregateRule["aggregations"][number];

/**
 * One aggregation of one group, fed a value at a time: what it needs, not the group's values. `count` counts values
 * that are not null (rows, with no column); `sum` and `avg` take those that are finite numbers (`Number(v)`); `min`
 * and `max` keep the first smallest and the last largest value (`compareValues`), as the first and last of a stable
 * sort would be, passing over NaN (what `number` makes of "n/a"), which has no place in that order.
 */
class Accumulator {
  private count = 0;
  private numbers = 0;
  private sum = 0;
  private best: unknown = null;

  constructor(private readonly fn: Aggregation["function"]) {}

  add(value: unknown): void {
    if (isNull(value)) return;
    this.count++;
    if (this.fn === "sum" || this.fn === "avg") {
      const n = Number(value);
      if (Number.isFinite(n)) {
        this.numbers++;
        this.sum += n;
      }
    } else if (this.fn === "min" || this.fn === "max") {
      if (Number.isNaN(value)) return;
      const order = this.best === null ? 0 : compareValues(value, this.best);
      if (this.best === null || (this.fn === "min" ? order < 0 : order >= 0)) this.best = value;
    }
  }

  result(): unknown {
    switch (this.fn) {
      case "count":
        return this.count;
      case "sum":
        return this.sum;
      case "avg":
        return this.numbers ? this.sum / this.numbers : null;
      case "min":
      case "max":
        return this.best;
    }
  }
}

/**
 * `aggregate`'s groups, filled a row at a time (`add`), in the order each group's first row came. The same rows
 * whether the rows are added in one go or in slices, and no group keeps its rows: a group's memory is its
 * accumulators.
 */
export class Groups {
  private readonly groups = new Map<string, { first: Row; accumulators: Accumulator[] }>();
  readonly columns: string[];

  constructor(private readonly rule: AggregateRule) {
    const names = rule.aggregations.map((a) => a.as ?? (a.column ? `${a.function}_${a.column}` : a.function));
    this.columns = [...rule.group_by, ...names];
  }

  add(row: Row): void {
    const key = keyOf(row, this.rule.group_by);
    let group = this.groups.get(key);
    if (!group) {
      group = { first: row, accumulators: this.rule.aggregations.map((a) => new Accumulator(a.function)) };
      this.groups.set(key, group);
    }
    const { aggregations } = this.rule;
    for (let i = 0; i < aggregations.length; i++) {
      const column = aggregations[i]!.column;
      group.accumulators[i]!.add(column ? cell(row, column) : row);
    }
  }

  /** One row per group: its `group_by` values (from its first row), then each aggregation's result. */
  private rowOf({ first, accumulators }: { first: Row; accumulators: Accumulator[] }): Row {
    const out: Row = {};
    const { group_by } = this.rule;
    for (const c of group_by) ownProperty(out, c, cell(first, c) ?? null);
    accumulators.forEach((a, i) => ownProperty(out, this.columns[group_by.length + i]!, a.result()));
    return out;
  }

  rows(): Row[] {
    return [...this.groups.values()].map((g) => this.rowOf(g));
  }

  async rowsInSlices(slices: Slices): Promise<Row[]> {
    const rows: Row[] = [];
    await slices.eachOf([...this.groups.values()], (g) => rows.push(this.rowOf(g)));
    return rows;
  }
}
