import { describe, expect, it } from "vitest";
import { transformConfig, transformNode } from "../../../src/engine/nodes/transform.js";
import { joinConfig, joinNode } from "../../../src/engine/nodes/join.js";
import { unionConfig, unionNode } from "../../../src/engine/nodes/union.js";
import { qualityConfig, qualityNode } from "../../../src/engine/nodes/quality.js";
import { conditionConfig, conditionNode } from "../../../src/engine/nodes/condition.js";
import type { DataSet, Row } from "../../../src/engine/dataset.js";
import { nodeContext } from "../peer-server.js";
import { expectSliced, holdOf } from "./event-loop-hold.js";

/**
 * Work over many rows in `aggregate`, `join`, `union`, `quality` and `condition` goes in slices (engine/slices.ts), as
 * `transform`'s row rules do: before, over 300,000 rows, a join held the server's thread for 1.5 s, an aggregate into
 * many groups for 1 s, a condition for 0.5 s, a union for 0.4 s and a quality check for 0.3 s, with every request and
 * every other run waiting.
 */

/**
 * `n` orders; `customer` repeats every 997 rows, `amount` is a number or null, `code` a text (digits, compared as
 * text: "10" before "9").
 */
function orders(n: number): DataSet {
  const rows: Row[] = [];
  for (let i = 0; i < n; i++) {
    const amount = i % 13 === 0 ? null : (i * 7) % 1000;
    const region = ["eu", "us", "apac"][i % 3];
    rows.push({ id: i, customer: `c${i % 997}`, region, amount, code: String(i % 250), day: "2026-11-28" });
  }
  return { columns: ["id", "customer", "region", "amount", "code", "day"], rows };
}

/** aggregate as it was written before it went in slices: each group's values kept, then sorted for min and max. */
function aggregateReference(data: DataSet, groupBy: string[], aggregations: { column?: string; function: string }[]) {
  const isNull = (v: unknown) => v === null || v === undefined;
  const compare = (a: unknown, b: unknown): number => {
    if (isNull(a) && isNull(b)) return 0;
    if (isNull(a)) return 1;
    if (isNull(b)) return -1;
    if (typeof a === "number" && typeof b === "number") return a - b;
    return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
  };
  const groups = new Map<string, Row[]>();
  for (const r of data.rows) {
    const k = JSON.stringify(groupBy.map((c) => r[c] ?? null));
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(r);
  }
  return [...groups.values()].map((members) => {
    const out: Row = {};
    for (const c of groupBy) out[c] = members[0]![c] ?? null;
    for (const a of aggregations) {
      const values = a.column ? members.map((r) => r[a.column!]).filter((v) => !isNull(v)) : members;
      const nums = values.map(Number).filter((n) => Number.isFinite(n));
      const name = a.column ? `${a.function}_${a.column}` : a.function;
      if (a.function === "count") out[name] = values.length;
      else if (a.function === "sum") out[name] = nums.reduce((s, n) => s + n, 0);
      else if (a.function === "avg") out[name] = nums.length ? nums.reduce((s, n) => s + n, 0) / nums.length : null;
      else out[name] = values.length ? [...values].sort(compare)[a.function === "min" ? 0 : values.length - 1] : null;
    }
    return out;
  });
}

/** A join by nested loops: the rows a hash join must make, in its order (left rows, then unmatched right ones). */
function joinReference(left: DataSet, right: DataSet, on: string, how: string): Row[] {
  const rows: Row[] = [];
  const matched = new Set<number>();
  const rest = (d: DataSet) => d.columns.filter((c) => c !== on);
  const build = (l: Row | null, r: Row | null) => {
    const out: Row = { [on]: (l ? l[on] : r![on]) ?? null };
    for (const c of rest(left)) out[c] = (l ? l[c] : null) ?? null;
    for (const c of rest(right)) out[c] = (r ? r[c] : null) ?? null;
    return out;
  };
  for (const l of left.rows) {
    let hit = false;
    right.rows.forEach((r, i) => {
      if (l[on] === null || l[on] !== r[on]) return;
      hit = true;
      matched.add(i);
      rows.push(build(l, r));
    });
    if (!hit && (how === "left" || how === "full")) rows.push(build(l, null));
  }
  if (how === "right" || how === "full") right.rows.forEach((r, i) => matched.has(i) || rows.push(build(null, r)));
  return rows;
}

describe("aggregate over many rows", () => {
  const aggregations = [
    { column: "amount", function: "sum" },
    { column: "amount", function: "avg" },
    { column: "amount", function: "min" },
    { column: "amount", function: "max" },
    { column: "amount", function: "count" },
    { column: "code", function: "min" },
    { column: "code", function: "max" },
    { column: "code", function: "sum" },
    { function: "count" },
    { function: "min" },
  ];

  it("gives what keeping each group's values gave, in the order groups first appear", async () => {
    const input = orders(30_000);
    const config = transformConfig.parse({ rules: [{ type: "aggregate", group_by: ["customer"], aggregations }] });
    const { ctx } = nodeContext("transform");
    const out = (await transformNode.run(ctx, config, [input])).output;
    expect(out.rows).toEqual(aggregateReference(input, ["customer"], aggregations));
    expect(out.rows).toHaveLength(997);
    expect(out.columns).toEqual(["customer", ...Object.keys(out.rows[0]!).slice(1)]);
  });

  it("keeps the first smallest and the last largest of values that compare equal, as a stable sort did", async () => {
    // 1 and "1" compare equal (as text), as do 2 and "2"
    const rows = [1, "1", 2, "2", null, 1].map((amount, id) => ({ id, amount }));
    const minMax = [
      { column: "amount", function: "min" },
      { column: "amount", function: "max" },
    ];
    const config = transformConfig.parse({ rules: [{ type: "aggregate", aggregations: minMax }] });
    const { ctx } = nodeContext("transform");
    const out = (await transformNode.run(ctx, config, [{ columns: ["id", "amount"], rows }])).output;
    expect(out.rows).toEqual([{ min_amount: 1, max_amount: "2" }]);
    expect(out.rows).toEqual(aggregateReference({ columns: ["id", "amount"], rows }, [], minMax));
  });

  it("passes over NaN in min and max (what `number` makes of text), which no order places", async () => {
    const config = transformConfig.parse({
      rules: [
        { type: "apply_function", column: "amount", function: "number" },
        {
          type: "aggregate",
          aggregations: [
            { column: "amount", function: "min" },
            { column: "amount", function: "max" },
            { column: "amount", function: "count" },
            { column: "amount", function: "sum" },
          ],
        },
      ],
    });
    for (const amounts of [["n/a", "3", "5"], ["3", "n/a", "1"], ["n/a"]]) {
      const { ctx } = nodeContext("transform");
      const data = { columns: ["amount"], rows: amounts.map((amount) => ({ amount })) };
      const out = (await transformNode.run(ctx, config, [data])).output;
      const numbers = amounts.map(Number).filter((n) => !Number.isNaN(n));
      expect(out.rows).toEqual([
        {
          min_amount: numbers.length ? Math.min(...numbers) : null,
          max_amount: numbers.length ? Math.max(...numbers) : null,
          count_amount: amounts.length,
          sum_amount: numbers.reduce((a, b) => a + b, 0),
        },
      ]);
    }
  });

  it("into many groups, lets the event loop turn while it works", async () => {
    const input = orders(300_000);
    const config = transformConfig.parse({
      rules: [
        { type: "aggregate", group_by: ["id"], aggregations: [{ column: "amount", function: "sum", as: "total" }] },
      ],
    });
    const { ctx } = nodeContext("transform");
    const hold = await holdOf(() => transformNode.run(ctx, config, [input]));
    expect(hold.result.output.rows).toHaveLength(300_000);
    expectSliced(hold);
  });
});

describe("join over many rows", () => {
  const people = (n: number, every: number): DataSet => ({
    columns: ["k", "name"],
    rows: Array.from({ length: n }, (_, i) => ({ k: i % 11 === 0 ? null : (i * every) % 2000, name: `p${i}` })),
  });
  const cities: DataSet = {
    columns: ["k", "city"],
    rows: Array.from({ length: 1500 }, (_, i) => ({ k: i % 17 === 0 ? null : (i * 3) % 2500, city: `t${i}` })),
  };

  it("makes the rows a join by nested loops makes, for every kind of join", async () => {
    const left = people(1200, 7);
    for (const how of ["inner", "left", "right", "full"]) {
      const { ctx } = nodeContext("join", { inputIds: ["people", "cities"] });
      const out = (await joinNode.run(ctx, joinConfig.parse({ how, on: "k" }), [left, cities])).output;
      expect(out.rows, how).toEqual(joinReference(left, cities, "k", how));
    }
  });

  it("lets the event loop turn while it works, for 300,000 rows joined with 300,000", async () => {
    const side = (name: string): DataSet => ({
      columns: ["id", name],
      rows: Array.from({ length: 300_000 }, (_, i) => ({ id: i, [name]: `${name}${i}` })),
    });
    const inputs = [side("a"), side("b")];
    const { ctx } = nodeContext("join", { inputIds: ["a", "b"] });
    const hold = await holdOf(() => joinNode.run(ctx, joinConfig.parse({ how: "full", on: "id" }), inputs));
    expect(hold.result.output.rows).toHaveLength(300_000);
    expectSliced(hold);
  });

  it("lets the event loop turn while it makes the rows of one left row matching 300,000 right rows", async () => {
    // the rows are made a piece at a time, not a left row at a time: this one row makes them all, and making them
    // (16 columns each) is most of the node's work
    const left: DataSet = { columns: ["k", "a"], rows: [{ k: "x", a: 1 }] };
    const wide = Array.from({ length: 12 }, (_, c) => `w${c}`);
    const right: DataSet = {
      columns: ["k", "b", "c", "d", ...wide],
      rows: Array.from({ length: 300_000 }, (_, i) => ({
        k: i === 0 ? "y" : "x",
        b: i,
        c: `c${i}`,
        d: i % 2 === 0,
        ...Object.fromEntries(wide.map((w) => [w, i])),
      })),
    };
    const { ctx } = nodeContext("join", { inputIds: ["l", "r"] });
    const hold = await holdOf(() => joinNode.run(ctx, joinConfig.parse({ how: "right", on: "k" }), [left, right]));
    expect(hold.result.output.rows).toHaveLength(300_000);
    expect(hold.result.output.rows.at(-1)).toMatchObject({ k: "y", a: null, b: 0, c: "c0", d: true, w11: 0 });
    expectSliced(hold);
  });

  it("stops between two slices once its signal is aborted (its timeout, a cancel), with the signal's reason", async () => {
    const controller = new AbortController();
    const reason = new Error("the run was cancelled");
    const rows = orders(300_000).rows;
    const { ctx } = nodeContext("join", { signal: controller.signal, inputIds: ["a", "b"] });
    setImmediate(() => controller.abort(reason));
    const data: DataSet = { columns: orders(0).columns, rows };
    await expect(joinNode.run(ctx, joinConfig.parse({ on: "id" }), [data, data])).rejects.toBe(reason);
  });
});

describe("union, quality and condition over many rows", () => {
  it("union lets the event loop turn while it works, and keeps every row in order", async () => {
    const a = orders(200_000);
    const b: DataSet = { columns: ["id", "extra"], rows: a.rows.map((r, i) => ({ id: i, extra: i % 2 })) };
    const { ctx } = nodeContext("union");
    const hold = await holdOf(() => unionNode.run(ctx, unionConfig.parse({}), [a, b]));
    const out = hold.result.output;
    expect(out.columns).toEqual([...a.columns, "extra"]);
    expect(out.rows).toHaveLength(400_000);
    expect(out.rows[199_999]).toEqual({ ...a.rows[199_999], extra: null });
    expect(out.rows[200_001]).toEqual({
      id: 1,
      customer: null,
      region: null,
      amount: null,
      code: null,
      day: null,
      extra: 1,
    });
    expectSliced(hold);
  });

  it("quality lets the event loop turn while every kind of row check works, and finds the same rows", async () => {
    const input = orders(150_000);
    const config = qualityConfig.parse({
      checks: [
        { type: "not_null", column: "amount" },
        { type: "unique", column: "customer" },
        { type: "range", column: "id", min: 10, max: 149_990 },
        { type: "accepted_values", column: "region", values: ["eu", "us"] },
        { type: "type_check", column: "amount", expected_type: "integer" },
        { type: "regex", column: "customer", pattern: "^c[0-9]+$" },
        { type: "freshness", column: "day", max_age_hours: 24 * 365 * 100 },
      ],
      on_failure: "dlq",
    });
    const sent: { kept: number; note: string | null }[] = [];
    const { ctx, logs } = nodeContext("quality", {
      deadLetter: async (payload) => void sent.push({ kept: payload.rows.length, note: payload.note }),
    });
    const hold = await holdOf(() => qualityNode.run(ctx, config, [input]));
    // rows that pass every check: a first customer (id < 997), an amount, id from 10, region eu or us
    const passes = (r: Row) =>
      (r.id as number) < 997 && r.amount !== null && (r.id as number) >= 10 && r.region !== "apac";
    expect(hold.result.output.rows).toEqual(input.rows.filter(passes));
    // the failing rows are sent, of which an entry keeps the first 10,000 (made readable: the rest are not)
    const failed = input.rows.length - hold.result.output.rows.length;
    expect(sent).toEqual([
      { kept: 10_000, note: expect.stringContaining(`${failed - 10_000} of ${failed} rows not kept`) },
    ]);
    expect(logs.at(-1)?.message).toContain("not_null(amount): 11539 row(s) failed");
    expectSliced(hold);
  });

  it("condition lets the event loop turn while it sums every column", async () => {
    const input = orders(300_000);
    const { ctx } = nodeContext("condition");
    const config = conditionConfig.parse({ expression: "sum.id > 0 && count.amount < row_count && max.amount == 999" });
    const hold = await holdOf(() => conditionNode.run(ctx, config, [input]));
    expect(hold.result.skipDownstream).toBe(false);
    expectSliced(hold);
  });
});
