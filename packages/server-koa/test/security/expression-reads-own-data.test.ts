import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { runPipeline } from "./attack-support.js";

/*
 * (Jexl's tokenizer already refuses the bare names of Object.prototype's members, `constructor` or `__proto__`, so
 * the attacks reach them by bracket access and through other values' methods.)
 *
 * An editor's `transform` and `condition` expressions may read a row's, a value's or `params`' own data and nothing
 * else. The attacks below walk from a value to what it inherits: `constructor` (the `Object` and `Function`
 * constructors), `__proto__` (`Object.prototype`) and methods. Each must read nothing: the rows get null (or "" where
 * a text transform is applied), no function's source or name reaches a preview, and `Object.prototype` is unchanged.
 */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

const ATTACKS: Record<string, string> = {
  ctor_name: 'o["constructor"].name',
  ctor_source: 'o["constructor"]|string',
  text_ctor_source: 'concat("", s["constructor"])',
  proto: 'params["__proto__"]',
  proto_of_value: 'o["__proto__"]',
  method: 'o["hasOwnProperty"]',
  text_method: "s.toUpperCase",
  // columns that later code would call implicitly if they held a function
  toJSON: 'o["constructor"]',
  then: 'list["map"]',
  relative: "list[.toFixed]",
};

describe("expressions read only own data", () => {
  it("reach no constructor, prototype or method, and honest reads still work", async () => {
    const protoKeys = Object.getOwnPropertyNames(Object.prototype).sort();
    const rules = [
      ...Object.entries(ATTACKS).map(([name, expression]) => ({ type: "add_column", name, expression })),
      { type: "add_column", name: "s_length", expression: "s.length" },
      { type: "add_column", name: "first", expression: "list[0]" },
      { type: "add_column", name: "nested", expression: 'o.a + o["b"]' },
      { type: "add_column", name: "picked", expression: "items[.k > 1].k" },
    ];
    const { run } = await runPipeline(t, {
      name: "expression attacks",
      nodes: [
        {
          id: "src",
          type: "code",
          config: { code: "return [{ s: 'abc', o: { a: 1, b: 2 }, list: [1, 2, 3], items: [{ k: 1 }, { k: 2 }] }];" },
        },
        { id: "evil", type: "transform", config: { rules } },
        {
          id: "gate",
          type: "condition",
          config: { expression: 'first["constructor"] || params["__proto__"] || rows["constructor"] || rows.map' },
        },
      ],
      edges: [
        { from: "src", to: "evil" },
        { from: "evil", to: "gate" },
      ],
    });
    expect(run.status, JSON.stringify(run)).toBe("success");

    const previewText = await (await t.fetch(`/runs/${run.id}/nodes/evil/preview`)).text();
    expect(previewText).not.toMatch(/native code|function|Function|Object/);
    const preview = JSON.parse(previewText) as { rows: Record<string, unknown>[] };
    expect(preview.rows).toHaveLength(1);
    const row = preview.rows[0]!;
    for (const name of Object.keys(ATTACKS)) {
      const want = name === "ctor_source" || name === "text_ctor_source" ? "" : name === "relative" ? [] : null;
      expect(row[name], `${name}: ${ATTACKS[name]}`).toEqual(want);
    }
    expect(row).toMatchObject({ s_length: 3, first: 1, nested: 3, picked: 2 });

    // the condition read nothing inherited either: it is false, so the run's log says the downstream is skipped
    const logs = (await (await t.fetch(`/runs/${run.id}/logs`)).json()) as
      { message: string }[] | { items: { message: string }[] };
    const messages = (Array.isArray(logs) ? logs : logs.items).map((l) => l.message);
    expect(messages.some((m) => m.includes("is false"))).toBe(true);

    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoKeys);
  });

  it("fail cleanly when they index past what they cannot read, and call nothing", async () => {
    for (const expression of [
      'o["constructor"]["constructor"]("return process")()',
      'o["constructor"]["constructor"]',
      's["constructor"]["fromCharCode"](65)',
    ]) {
      const { run } = await runPipeline(t, {
        name: "expression chain attack",
        nodes: [
          { id: "src", type: "code", config: { code: "return [{ s: 'abc', o: { a: 1 } }];" } },
          { id: "evil", type: "transform", config: { rules: [{ type: "add_column", name: "x", expression }] } },
        ],
        edges: [{ from: "src", to: "evil" }],
      });
      expect(run.status, expression).toBe("failed");
      const error = run.node_runs.find((n) => n.node_id === "evil")?.error ?? "";
      expect(error, expression).toMatch(/invalid expression|Cannot read properties of undefined|is not defined/);
      expect(error, expression).not.toMatch(/native code|\bpid\b|process\.|function [A-Z]/);
    }
  });
});
