import { SluiceError } from "../../errors.js";
import { cell, copyRow, ownProperty, withValue, type DataSet, type Row } from "../dataset.js";
import { compileExpression, EvaluationBudget, spendRuleText, spendWrittenValue } from "../expression.js";
import { replaceText } from "../replace-text.js";
import { defineNodeType } from "../node-type.js";
import { fitsOneGo, Slices } from "../slices.js";
import { z } from "zod";
import { compareValues, isNull, keyOf } from "./cell-values.js";
import { loose } from "./config-parts.js";
import { Groups } from "./transform-aggregate.js";
import { TransformRuleSchema } from "./transform-rules.js";
import type { TransformRule } from "./transform-rules.js";

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

function castValue(value: unknown, to: string): unknown {
  if (isNull(value) || value === "") return null;
  switch (to) {
    case "int":
    case "integer": {
      const n = Number(value);
      return Number.isFinite(n) ? Math.trunc(n) : null;
    }
    case "float":
    case "number": {
      const n = Number(value);
      return Number.isFinite(n) ? n : null;
    }
    case "string":
    case "text":
      return typeof value === "object" ? JSON.stringify(value) : String(value);
    case "bool":
    case "boolean":
      if (typeof value === "string") return ["true", "1", "yes", "y", "t"].includes(value.trim().toLowerCase());
      return Boolean(value);
    case "date":
    case "datetime": {
      const d = value instanceof Date ? value : new Date(String(value));
      if (Number.isNaN(d.getTime())) return null;
      return to === "date" ? d.toISOString().slice(0, 10) : d.toISOString();
    }
    default:
      return value;
  }
}

function applyFunction(value: unknown, fn: string, digits = 0): unknown {
  if (isNull(value)) return value;
  switch (fn) {
    case "upper":
      return String(value).toUpperCase();
    case "lower":
      return String(value).toLowerCase();
    case "trim":
      return String(value).trim();
    case "length":
      return String(value).length;
    case "string":
      return String(value);
    case "number":
      return Number(value);
    case "round": {
      const f = 10 ** digits;
      return Math.round(Number(value) * f) / f;
    }
    case "abs":
      return Math.abs(Number(value));
    case "floor":
      return Math.floor(Number(value));
    case "ceil":
      return Math.ceil(Number(value));
    default:
      return value;
  }
}

/**
 * What a row expression sees: the row's columns, `row` (the row itself) and `params`, the last two winning over
 * columns of those names. One object per rule, refilled for each row: a copy of every row (`{ ...row }`) was the
 * larger part of evaluating an expression. A row with keys beyond the data set's columns gets a copy of its own.
 */
class RowScope {
  private readonly scope: Record<string, unknown> = {};
  /** Each name once (a `rename` onto an existing column names it twice): counted against the row's own keys. */
  private readonly columns: readonly string[];
  constructor(
    columns: readonly string[],
    private readonly params: Readonly<Record<string, string>>,
  ) {
    this.columns = [...new Set(columns)];
  }

  of(row: Row): Record<string, unknown> {
    const scope = this.scope;
    let seen = 0;
    for (const c of this.columns) {
      const own = Object.hasOwn(row, c);
      if (own) seen++;
      ownProperty(scope, c, own ? row[c] : undefined);
    }
    // counted without allocating Object.keys(row) for every row; an inherited enumerable key (a polluted
    // prototype) only makes the count differ, which takes the safe path of a copy
    let keys = 0;
    for (const _ in row) keys++;
    if (seen !== keys) return { ...row, row, params: this.params };
    scope.row = row;
    scope.params = this.params;
    return scope;
  }
}

/** `aggregate` over rows in one go. */
function aggregate(data: DataSet, rule: Extract<TransformRule, { type: "aggregate" }>): DataSet {
  const groups = new Groups(rule);
  for (const row of data.rows) groups.add(row);
  return { columns: groups.columns, rows: groups.rows() };
}

/** The order `sort` puts rows in: by its columns in turn, each ascending or descending, nulls last. */
function sortOrder(rule: Extract<TransformRule, { type: "sort" }>): (a: Row, b: Row) => number {
  const by = [...list(rule.columns), ...list(rule.by)];
  if (!by.length) throw new SluiceError("invalid", "sort needs columns (or by)");
  const sign = rule.descending || rule.order === "desc" ? -1 : 1;
  return (a, b) => {
    for (const c of by) {
      const x = cell(a, c);
      const y = cell(b, c);
      const d = compareValues(x, y);
      if (d !== 0) return isNull(x) || isNull(y) ? d : d * sign;
    }
    return 0;
  };
}

/** The columns `deduplicate` tells rows apart by: those it names, or the data set's. */
const keyColumns = (rule: Extract<TransformRule, { type: "deduplicate" }>, columns: readonly string[]) =>
  rule.columns ?? columns;

/**
 * The rows of `rows` whose key (by `keyColumns`, or all of a row's own keys where none are named) is not in `seen`
 * yet, in order; their keys are added to `seen`.
 */
function firstOfEach(rows: Row[], keyColumns: readonly string[], seen: Set<string>): Row[] {
  const out: Row[] = [];
  for (const r of rows) {
    const k = keyOf(r, keyColumns.length ? keyColumns : Object.keys(r));
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(r);
  }
  return out;
}

/** Applies one rule to a data set (new arrays; input rows are not mutated). */
export function applyRule(
  data: DataSet,
  rule: TransformRule,
  params: Readonly<Record<string, string>>,
  budget: EvaluationBudget = new EvaluationBudget(),
): DataSet {
  const { columns, rows } = data;
  switch (rule.type) {
    case "rename": {
      const m = rule.mapping;
      const rename = (c: string) => (Object.hasOwn(m, c) ? m[c]! : c);
      return {
        columns: columns.map(rename),
        rows: rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [rename(k), v]))),
      };
    }
    case "select": {
      // a Set: selecting 60,000 of 60,000 columns by a list took seconds (and again for every piece of rows)
      const has = new Set(columns);
      const missing = rule.columns.filter((c) => !has.has(c));
      if (missing.length && rows.length)
        throw new SluiceError("invalid", `select: unknown column(s) ${missing.join(", ")}`);
      return {
        columns: [...rule.columns],
        rows: rows.map((r) => Object.fromEntries(rule.columns.map((c) => [c, cell(r, c) ?? null]))),
      };
    }
    case "drop": {
      const drop = new Set(rule.columns);
      return {
        columns: columns.filter((c) => !drop.has(c)),
        rows: rows.map((r) => {
          const out: Row = {};
          for (const k in r) if (Object.hasOwn(r, k) && !drop.has(k)) ownProperty(out, k, r[k]);
          return out;
        }),
      };
    }
    case "add_column": {
      const fn = compileExpression(rule.expression);
      const scope = new RowScope(columns, params);
      return {
        columns: columns.includes(rule.name) ? columns : [...columns, rule.name],
        rows: rows.map((r) => {
          const value = fn(scope.of(r), budget) ?? null;
          spendWrittenValue(value, budget);
          return withValue(r, rule.name, value);
        }),
      };
    }
    case "filter": {
      const fn = compileExpression(rule.expression);
      const scope = new RowScope(columns, params);
      return { columns, rows: rows.filter((r) => Boolean(fn(scope.of(r), budget))) };
    }
    case "cast": {
      const targets = [...list(rule.columns), ...list(rule.column)];
      if (!targets.length) throw new SluiceError("invalid", "cast needs column or columns");
      return {
        columns,
        rows: rows.map((r) => {
          const out = copyRow(r);
          for (const c of targets) ownProperty(out, c, castValue(cell(r, c), rule.to));
          return out;
        }),
      };
    }
    case "fill_null": {
      const targets = [...list(rule.columns), ...list(rule.column)];
      const all = targets.length ? targets : columns;
      return {
        columns,
        rows: rows.map((r) => {
          const out = copyRow(r);
          for (const c of all) if (isNull(cell(r, c))) ownProperty(out, c, rule.value);
          return out;
        }),
      };
    }
    case "replace": {
      const { column, values, search, replacement } = rule;
      return {
        columns,
        rows: rows.map((r) => {
          const v = cell(r, column);
          if (values && !isNull(v) && Object.hasOwn(values, String(v))) return withValue(r, column, values[String(v)]);
          if (search !== undefined && typeof v === "string") {
            const replaced = replaceText(v, search, replacement ?? "");
            spendRuleText(budget, replaced.length, v.length);
            return withValue(r, column, replaced);
          }
          return r;
        }),
      };
    }
    case "apply_function": {
      const target = rule.target ?? rule.column;
      return {
        columns: columns.includes(target) ? columns : [...columns, target],
        rows: rows.map((r) => withValue(r, target, applyFunction(cell(r, rule.column), rule.function, rule.digits))),
      };
    }
    case "sort":
      return { columns, rows: [...rows].sort(sortOrder(rule)) };
    case "deduplicate":
      return { columns, rows: firstOfEach(rows, keyColumns(rule, columns), new Set()) };
    case "aggregate":
      return aggregate(data, rule);
    case "limit":
      return { columns, rows: rows.slice(0, rule.count) };
  }
}

/**
 * How each rule goes over many rows (applyInSlices): `row`, each row made from that row alone, the data set's columns
 * and `params`, so any piece of rows on its own; `keys`, deduplicate's, the keys seen so far carried from piece to
 * piece; `merge`, sort's (sortInSlices); `groups`, aggregate's, its groups filled a piece at a time, then made rows a
 * piece of groups at a time; `all`, all the rows at once.
 */
const OVER_MANY_ROWS: Readonly<Record<TransformRule["type"], "row" | "keys" | "merge" | "groups" | "all">> = {
  rename: "row",
  select: "row",
  drop: "row",
  add_column: "row",
  filter: "row",
  cast: "row",
  fill_null: "row",
  replace: "row",
  apply_function: "row",
  deduplicate: "keys",
  sort: "merge",
  aggregate: "groups",
  limit: "all",
};

/**
 * `applyRule` over many rows without holding the server's thread for much longer than a slice (engine/slices.ts): a
 * piece of rows at a time (OVER_MANY_ROWS, Slices.each), with a turn of the event loop whenever a slice is used up;
 * the result is the same as in one go.
 */
async function applyInSlices(
  data: DataSet,
  rule: TransformRule,
  params: Readonly<Record<string, string>>,
  budget: EvaluationBudget,
  slices: Slices,
): Promise<DataSet> {
  const how = OVER_MANY_ROWS[rule.type];
  if (how === "all") return applyRule(data, rule, params, budget);
  if (rule.type === "sort")
    return { columns: data.columns, rows: await sortInSlices(data.rows, sortOrder(rule), slices) };
  if (rule.type === "aggregate") {
    const groups = new Groups(rule);
    await slices.eachOf(data.rows, (row) => groups.add(row));
    return { columns: groups.columns, rows: await groups.rowsInSlices(slices) };
  }
  const seen = new Set<string>();
  let columns = data.columns;
  const rows: Row[] = [];
  await slices.each(data.rows.length, (from, to) => {
    const piece = data.rows.slice(from, to);
    if (rule.type === "deduplicate") {
      for (const r of firstOfEach(piece, keyColumns(rule, data.columns), seen)) rows.push(r);
    } else {
      const done = applyRule({ columns: data.columns, rows: piece }, rule, params, budget);
      columns = done.columns;
      for (const r of done.rows) rows.push(r);
    }
  });
  return { columns, rows };
}

/** Rows merged between two looks at the clock (sortInSlices): one comparison of rows can look at many columns. */
const MERGED_PER_LOOK = 16;

/**
 * `rows` sorted by `order` in slices: runs of rows sorted each (as many rows as Slices.each gives a piece), then merged
 * two by two, the earlier run's row first where `order` finds two equal. The same rows in the same order as one
 * stable sort (as `Array.prototype.sort`) for an order that is consistent (not for a column mixing numbers and texts).
 */
async function sortInSlices(rows: readonly Row[], order: (a: Row, b: Row) => number, slices: Slices): Promise<Row[]> {
  let runs: Row[][] = [];
  await slices.each(rows.length, (from, to) => runs.push(rows.slice(from, to).sort(order)));
  while (runs.length > 1) {
    const merged: Row[][] = [];
    for (let i = 0; i < runs.length; i += 2) {
      const a = runs[i]!;
      const b = runs[i + 1];
      if (!b) {
        merged.push(a);
        continue;
      }
      const out: Row[] = [];
      let x = 0;
      let y = 0;
      while (x < a.length && y < b.length) {
        out.push(order(b[y]!, a[x]!) < 0 ? b[y++]! : a[x++]!);
        if (out.length % MERGED_PER_LOOK === 0 && slices.due()) await slices.next();
      }
      while (x < a.length) out.push(a[x++]!);
      while (y < b.length) out.push(b[y++]!);
      merged.push(out);
    }
    runs = merged;
  }
  return runs[0] ?? [];
}

export const transformConfig = loose({ rules: z.array(TransformRuleSchema, { error: "rules must be an array" }) });

/** `transform`: the rules, in order, over the (first) input. */
export const transformNode = defineNodeType({
  type: "transform",
  configSchema: transformConfig,
  async run(ctx, config, inputs) {
    let data: DataSet = inputs[0] ?? { columns: [], rows: [] };
    const before = data.rows.length;
    // the expressions of all rules over all rows share one budget (docs/nodes.md#transform)
    const budget = new EvaluationBudget();
    let slices: Slices | undefined; // made for the first rule over many rows
    for (let i = 0; i < config.rules.length; i++) {
      const rule = config.rules[i]!;
      try {
        data = fitsOneGo(data.rows.length, data.columns.length)
          ? applyRule(data, rule, ctx.params, budget)
          : await applyInSlices(data, rule, ctx.params, budget, (slices ??= new Slices(ctx.signal)));
      } catch (e) {
        if (e === ctx.signal.reason) throw e; // the node's timeout or a cancel, between two slices
        throw new SluiceError("invalid", `rule ${i + 1} (${rule.type}): ${(e as Error).message}`);
      }
    }
    return {
      output: data,
      summary: `transform: ${config.rules.length} rules, ${before} rows in, ${data.rows.length} rows out`,
    };
  },
});
