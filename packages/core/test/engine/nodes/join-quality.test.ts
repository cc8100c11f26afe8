import { describe, expect, it } from "vitest";
import { joinNode } from "../../../src/engine/nodes/join.js";
import { qualityNode } from "../../../src/engine/nodes/quality.js";
import { joinConfig } from "../../../src/engine/nodes/join.js";
import { qualityConfig } from "../../../src/engine/nodes/quality.js";
import type { Row } from "../../../src/engine/dataset.js";
import { nodeContext } from "../peer-server.js";

const orders = {
  columns: ["customer_id", "day", "amount"],
  rows: [
    { customer_id: 1, day: "d1", amount: 5 },
    { customer_id: 2, day: "d1", amount: 7 },
    { customer_id: 9, day: "d2", amount: 1 },
  ],
};
const customers = {
  columns: ["customer_id", "day", "name"],
  rows: [
    { customer_id: 1, day: "d1", name: "Ada" },
    { customer_id: 2, day: "d9", name: "Bob" },
    { customer_id: 3, day: "d1", name: "Cy" },
  ],
};

const join = async (config: Record<string, unknown>) => {
  const { ctx } = nodeContext("join", { inputIds: ["orders", "customers"] });
  return (await joinNode.run(ctx, joinConfig.parse(config), [orders, customers])).output;
};

describe("join", () => {
  it("inner/left/right/full on one key, prefixing clashing columns with the upstream node id", async () => {
    const inner = await join({ how: "inner", on: "customer_id" });
    expect(inner.columns).toEqual(["customer_id", "orders.day", "amount", "customers.day", "name"]);
    expect(inner.rows.map((r) => [r.customer_id, r.name])).toEqual([
      [1, "Ada"],
      [2, "Bob"],
    ]);
    expect((await join({ how: "left", on: "customer_id" })).rows.map((r) => [r.customer_id, r.name])).toEqual([
      [1, "Ada"],
      [2, "Bob"],
      [9, null],
    ]);
    expect((await join({ how: "right", on: "customer_id" })).rows.map((r) => [r.customer_id, r.amount])).toEqual([
      [1, 5],
      [2, 7],
      [3, null],
    ]);
    expect((await join({ how: "full", on: "customer_id" })).rows).toHaveLength(4);
  });

  it("prefixes a right column named as a left key column instead of letting it overwrite the key", async () => {
    // found by an attack: with left_on "day" and right_on "name", the right side's own "day" replaced the key
    const out = await join({ how: "full", left_on: "day", right_on: "name" });
    expect(out.columns).toEqual(["day", "orders.customer_id", "amount", "customers.customer_id", "customers.day"]);
    expect(out.rows).toContainEqual({
      day: "Ada",
      "orders.customer_id": null,
      amount: null,
      "customers.customer_id": 1,
      "customers.day": "d1",
    });
    expect(out.rows.filter((r) => r.amount !== null).map((r) => r.day)).toEqual(["d1", "d1", "d2"]);
  });

  it("joins on several key columns", async () => {
    const out = await join({ on: ["customer_id", "day"] });
    expect(out.columns).toEqual(["customer_id", "day", "amount", "name"]);
    expect(out.rows).toEqual([{ customer_id: 1, day: "d1", amount: 5, name: "Ada" }]);
  });
});

const rows: Row[] = [
  { id: 1, email: "a@x.io", age: 30, status: "ok", ts: new Date().toISOString() },
  { id: 2, email: null, age: 130, status: "ok", ts: new Date().toISOString() },
  { id: 2, email: "bad", age: 20, status: "weird", ts: new Date().toISOString() },
];
const checks = [
  { type: "not_null", column: "email" },
  { type: "unique", column: "id" },
  { type: "range", column: "age", min: 0, max: 120 },
  { type: "regex", column: "email", pattern: "^[^@]+@[^@]+$" },
  { type: "accepted_values", column: "status", values: ["ok"] },
  { type: "row_count", min: 1, max: 10 },
  { type: "type_check", column: "age", expected_type: "integer" },
  { type: "freshness", column: "ts", max_age_hours: 1 },
];

describe("quality", () => {
  it("checks binary, boolean, date and object values by their text, and never throws on an object's own keys", async () => {
    const values: Row[] = [
      { v: Buffer.from("abc-42"), b: true, d: new Date("2026-11-01T00:00:00Z") },
      { v: JSON.parse('{"toString": "x", "valueOf": "y"}'), b: 0, d: new Date("nope") },
    ];
    const config = qualityConfig.parse({
      on_failure: "dlq",
      checks: [
        { type: "regex", column: "v", pattern: "^abc-\\d+$" },
        { type: "type_check", column: "b", expected_type: "integer" },
        { type: "range", column: "d", min: "2026-01-01", max: "2026-12-31" },
      ],
    });
    const dead: Row[] = [];
    const dlq = nodeContext("quality", { deadLetter: async (p) => void dead.push(...p.rows) });
    const kept = await qualityNode.run(dlq.ctx, config, [{ columns: ["v", "b", "d"], rows: values }]);
    expect(kept.output.rows).toEqual([values[0]]);
    expect(dead).toEqual([values[1]]);
  });

  it("block fails the node naming every failed check", async () => {
    const { ctx } = nodeContext("quality");
    const err = await qualityNode
      .run(ctx, qualityConfig.parse({ checks }), [{ columns: Object.keys(rows[0]!), rows }])
      .catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    for (const name of ["not_null(email)", "unique(id)", "range(age)", "regex(email)", "accepted_values(status)"])
      expect((err as Error).message).toContain(name);
    expect((err as Error).message).not.toContain("row_count");
  });

  it("warn passes every row on with a warning; dlq sends the failing rows to the dead-letter queue", async () => {
    const warn = nodeContext("quality");
    const passed = await qualityNode.run(warn.ctx, qualityConfig.parse({ checks, on_failure: "warn" }), [
      { columns: [], rows },
    ]);
    expect(passed.output.rows).toHaveLength(3);
    expect(warn.logs.some((l) => l.level === "warning")).toBe(true);

    const dead: { rows: Row[]; error: string }[] = [];
    const dlq = nodeContext("quality", { deadLetter: async (p, error) => void dead.push({ rows: p.rows, error }) });
    const kept = await qualityNode.run(dlq.ctx, qualityConfig.parse({ checks, on_failure: "dlq" }), [
      { columns: [], rows },
    ]);
    expect(kept.output.rows.map((r) => r.id)).toEqual([1]);
    expect(dead).toHaveLength(1);
    expect(dead[0]!.rows.map((r) => r.email)).toEqual([null, "bad"]);
  });

  it("rejects an unknown check type at validation", () => {
    expect(qualityConfig.safeParse({ checks: [{ type: "vibes" }] }).success).toBe(false);
  });
});
