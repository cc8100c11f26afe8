import { describe, expect, it } from "vitest";
import { transformNode } from "../../../src/engine/nodes/transform.js";
import { transformConfig } from "../../../src/engine/nodes/transform.js";
import { nodeContext } from "../peer-server.js";

const input = {
  columns: ["id", "name", "amount", "region", "note"],
  rows: [
    { id: 1, name: " ada ", amount: "10.5", region: "eu", note: null },
    { id: 2, name: "bob", amount: "3", region: "us", note: "x" },
    { id: 2, name: "bob", amount: "3", region: "us", note: "x" },
    { id: 3, name: "cy", amount: "7.25", region: "eu", note: null },
  ],
};

const run = async (rules: unknown[], params: Record<string, string> = {}) => {
  const { ctx } = nodeContext("transform", { params });
  return (await transformNode.run(ctx, transformConfig.parse({ rules }), [input])).output;
};

describe("transform", () => {
  it("casts, trims, deduplicates, adds a computed column with a safe expression, filters and sorts descending", async () => {
    const out = await run(
      [
        { type: "cast", columns: ["amount"], to: "float" },
        { type: "apply_function", column: "name", function: "trim" },
        { type: "apply_function", column: "name", function: "upper", target: "name_uc" },
        { type: "deduplicate" },
        { type: "add_column", name: "gross", expression: "amount * 1.2" },
        { type: "filter", expression: "amount > params.min|number" },
        { type: "sort", columns: "amount", descending: true },
      ],
      { min: "5" },
    );
    expect(out.rows.map((r) => [r.id, r.name, r.name_uc, r.amount, r.gross])).toEqual([
      [1, "ada", "ADA", 10.5, 12.6],
      [3, "cy", "CY", 7.25, 8.7],
    ]);
    expect(out.columns).toEqual(["id", "name", "amount", "region", "note", "name_uc", "gross"]);
  });

  it("an expression sees each row's own values: a column a row lacks, keys beyond the columns, row and params", async () => {
    const { ctx } = nodeContext("transform", { params: { k: "P" } });
    const config = transformConfig.parse({
      rules: [
        { type: "add_column", name: "seen", expression: 'concat(a, "/", b, "/", extra, "/", row.a, "/", params.k)' },
        { type: "filter", expression: 'seen != "skip" && params != 1' },
      ],
    });
    const rows = [
      { a: 1, b: 2 },
      { a: 3 }, // no b: nothing of the row before it
      { a: 4, b: 5, extra: "x" }, // a key the columns do not name (a code node's output can have one)
      { a: 6, b: 7, row: "col", params: 1 }, // columns named row and params: the row itself and the params win
    ];
    const out = (await transformNode.run(ctx, config, [{ columns: ["a", "b", "row", "params"], rows }])).output;
    expect(out.rows.map((r) => r.seen)).toEqual(["1/2//1/P", "3///3/P", "4/5/x/4/P", "6/7//6/P"]);
    expect(out.rows[3]).toMatchObject({ row: "col", params: 1 });
  });

  it("an expression sees a row's extra key also where a rename made a column name appear twice", async () => {
    const { ctx } = nodeContext("transform");
    const config = transformConfig.parse({
      rules: [
        { type: "rename", mapping: { a: "b" } },
        { type: "add_column", name: "e", expression: "extra" },
        { type: "filter", expression: 'extra == "x"' },
      ],
    });
    const rows = [{ a: 1, b: 2, extra: "x" }];
    const out = (await transformNode.run(ctx, config, [{ columns: ["a", "b"], rows }])).output;
    expect(out.rows.map((r) => r.e)).toEqual(["x"]);
  });

  it("drop keeps a column named __proto__ as data, without touching any object's prototype", async () => {
    const row = JSON.parse('{"id": 1, "__proto__": {"polluted": true}, "gone": 2}') as Record<string, unknown>;
    const { ctx } = nodeContext("transform");
    const config = transformConfig.parse({ rules: [{ type: "drop", columns: ["gone"] }] });
    const out = (await transformNode.run(ctx, config, [{ columns: ["id", "__proto__", "gone"], rows: [row] }])).output;
    expect(JSON.stringify(out.rows)).toBe('[{"id":1,"__proto__":{"polluted":true}}]');
    expect(Object.getPrototypeOf(out.rows[0])).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("every rule that writes a column keeps a column named __proto__ as data", async () => {
    const rules = [
      { type: "add_column", name: "__proto__", expression: "{polluted: 1}" },
      { type: "apply_function", column: "name", function: "upper", target: "__proto__" },
      { type: "cast", column: "__proto__", to: "string" },
      { type: "replace", column: "__proto__", search: "A", replacement: "4" },
      { type: "fill_null", column: "__proto__", value: { polluted: 2 } },
    ];
    for (const [i, rule] of rules.entries()) {
      const out = await run(rules.slice(0, i + 1));
      for (const row of out.rows) {
        expect(Object.getPrototypeOf(row), JSON.stringify(rule)).toBe(Object.prototype);
        expect(Object.keys(row), JSON.stringify(rule)).toContain("__proto__");
        expect((row as { polluted?: unknown }).polluted).toBeUndefined();
      }
    }
    expect((await run(rules)).rows.map((r) => Object.getOwnPropertyDescriptor(r, "__proto__")?.value)).toEqual([
      " 4D4 ",
      "BOB",
      "BOB",
      "CY",
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("renames, selects, drops, fills nulls, replaces, aggregates and limits", async () => {
    const out = await run([
      { type: "rename", mapping: { region: "area" } },
      { type: "fill_null", column: "note", value: "-" },
      { type: "replace", column: "area", values: { eu: "Europe" } },
      { type: "cast", column: "amount", to: "float" },
      {
        type: "aggregate",
        group_by: ["area"],
        aggregations: [
          { column: "amount", function: "sum", as: "total" },
          { function: "count", as: "n" },
          { column: "amount", function: "max" },
        ],
      },
      { type: "sort", by: "area" },
    ]);
    expect(out.columns).toEqual(["area", "total", "n", "max_amount"]);
    expect(out.rows).toEqual([
      { area: "Europe", total: 17.75, n: 2, max_amount: 7.25 + 3.25 },
      { area: "us", total: 6, n: 2, max_amount: 3 },
    ]);
    const small = await run([
      { type: "select", columns: ["id", "note"] },
      { type: "drop", columns: ["note"] },
      { type: "limit", count: 2 },
    ]);
    expect(small).toEqual({ columns: ["id"], rows: [{ id: 1 }, { id: 2 }] });
  });

  it("leaves the rows it was given as they were, whichever rules write after which", async () => {
    const writers = [
      { type: "cast", column: "amount", to: "float" },
      { type: "add_column", name: "gross", expression: "amount * 2" },
      { type: "fill_null", column: "note", value: "-" },
      { type: "replace", column: "region", values: { eu: "Europe" } },
      { type: "replace", column: "name", search: "b", replacement: "B" },
      { type: "apply_function", column: "name", function: "upper" },
    ];
    const sequences = [
      writers,
      [{ type: "filter", expression: "id > 1" }, ...writers], // rows passed on as given, then written
      [{ type: "sort", columns: "id", descending: true }, ...writers, ...writers],
      [{ type: "replace", column: "region", values: { us: "USA" } }, ...writers], // some rows copied, some not
    ];
    const before = structuredClone(input.rows);
    for (const rules of sequences) {
      const out = await run(rules);
      expect(input.rows, JSON.stringify(rules)).toEqual(before);
      for (const row of out.rows) expect(input.rows).not.toContain(row);
    }
    const out = await run(writers);
    expect(out.rows.map((r) => [r.name, r.amount, r.gross, r.region, r.note])).toEqual([
      [" ADA ", 10.5, 21, "Europe", "-"],
      ["BOB", 3, 6, "us", "x"],
      ["BOB", 3, 6, "us", "x"],
      ["CY", 7.25, 14.5, "Europe", "-"],
    ]);
  });

  it("a column computed from the row itself holds the row as it was before that rule, with no cycle", async () => {
    const out = await run([
      { type: "cast", column: "amount", to: "float" }, // the node's own copies from here on
      { type: "add_column", name: "before", expression: "row" },
      { type: "add_column", name: "list", expression: "[row.id, row]" },
    ]);
    const first = out.rows[0]!;
    expect(first.before).toEqual({ id: 1, name: " ada ", amount: 10.5, region: "eu", note: null });
    expect((first.list as unknown[])[1]).toEqual({ ...(first.before as object), before: first.before });
    expect(() => JSON.stringify(out.rows)).not.toThrow();
  });

  it("copies and keeps a row's own keys only, not those its prototype lends it (a polluted prototype)", async () => {
    const row = Object.assign(Object.create({ lent: "by the prototype" }) as object, { id: "1", keep: "x", gone: 2 });
    const { ctx } = nodeContext("transform");
    for (const rules of [
      [{ type: "cast", column: "id", to: "int" }],
      [{ type: "add_column", name: "n", expression: "1" }],
      [{ type: "drop", columns: ["gone"] }],
    ]) {
      const config = transformConfig.parse({ rules });
      const out = (await transformNode.run(ctx, config, [{ columns: ["id", "keep", "gone"], rows: [row] }])).output;
      expect(Object.hasOwn(out.rows[0]!, "lent"), JSON.stringify(rules)).toBe(false);
      expect(Object.getPrototypeOf(out.rows[0]), JSON.stringify(rules)).toBe(Object.prototype);
    }
  });

  it("never evaluates JavaScript: constructor escapes are rejected as invalid expressions", async () => {
    await expect(
      run([{ type: "add_column", name: "x", expression: 'constructor.constructor("return process")()' }]),
    ).rejects.toThrow(/rule 1 \(add_column\)/);
  });

  it("validation reports a wrong rule type or a missing key per rule", () => {
    expect(transformConfig.safeParse({ rules: [{ type: "explode" }] }).success).toBe(false);
    const missing = transformConfig.safeParse({ rules: [{ type: "filter" }] });
    expect(missing.success).toBe(false);
    expect(JSON.stringify(missing.error?.issues)).toContain("expression");
  });
});

describe("a replace rule that grows every row (a helper's attack: 6,000 rows of 1 MB ended the process)", () => {
  it("fails the node on its budget of made text instead", async () => {
    const { ctx } = nodeContext("transform");
    const rows = Array.from({ length: 6000 }, () => ({ s: "xxxxxxxxxx" }));
    const config = transformConfig.parse({
      rules: [
        { type: "replace", column: "s", search: "", replacement: "y".repeat(100) },
        { type: "replace", column: "s", search: "", replacement: "z".repeat(1000) },
      ],
    });
    await expect(transformNode.run(ctx, config, [{ columns: ["s"], rows }])).rejects.toThrow(/characters of text made/);
  });
});
