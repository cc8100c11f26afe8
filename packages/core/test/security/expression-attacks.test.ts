import { describe, expect, it } from "vitest";
import { SluiceError } from "../../src/errors.js";
import {
  compileExpression,
  EvaluationBudget,
  MAX_EVALUATED_ITEMS,
  MAX_EVALUATION_CHARS,
  MAX_EXPRESSION_LENGTH,
  MAX_EXPRESSION_NESTING,
} from "../../src/engine/expression.js";
import type { Row } from "../../src/engine/dataset.js";
import { applyRule, transformConfig, transformNode } from "../../src/engine/nodes/transform.js";
import { MAX_REPLACED_LENGTH } from "../../src/engine/replace-text.js";
import { nodeContext } from "../engine/peer-server.js";

// An editor writes expressions; the server evaluates them. Each attack below must end in a clear `invalid` error,
// never in a crash of the process (a heap exhausted), a blocked event loop or an unwrapped engine error.
const failure = (fn: () => unknown): unknown => {
  try {
    return fn();
  } catch (e) {
    return e;
  }
};

describe("expression attacks", () => {
  it("a chain of replaces that would grow a text past the bound is refused, and the process lives", () => {
    const source = `s${'|replace("", s)'.repeat(8)}`;
    const e = failure(() => compileExpression(source)({ s: "0123456789" }));
    expect(e).toBeInstanceOf(SluiceError);
    expect((e as SluiceError).message).toContain(`at most ${MAX_REPLACED_LENGTH}`);
    // a replace inside the bound still works
    expect(compileExpression('s|replace("", "-")')({ s: "abc" })).toBe("a-b-c");
  });

  it("transform's replace rule has the same bound", async () => {
    const { ctx } = nodeContext("transform");
    const config = transformConfig.parse({
      rules: [{ type: "replace", column: "v", search: "", replacement: "x".repeat(1000) }],
    });
    const input = { columns: ["v"], rows: [{ v: "y".repeat(5000) }] };
    await expect(transformNode.run(ctx, config, [input])).rejects.toThrow(`at most ${MAX_REPLACED_LENGTH}`);
  });

  it("deep nesting, which Jexl's parser takes quadratic time over, is refused before parsing", () => {
    for (const source of [
      `${"(".repeat(2000)}1${")".repeat(2000)}`,
      "(".repeat(4000),
      `x${"[".repeat(1000)}1${"]".repeat(1000)}`,
    ]) {
      const e = failure(() => compileExpression(source));
      expect(e).toBeInstanceOf(SluiceError);
      expect((e as SluiceError).message).toMatch(new RegExp(`nested deeper than ${MAX_EXPRESSION_NESTING} levels`));
    }
    const nested = `${"(".repeat(MAX_EXPRESSION_NESTING)}1${")".repeat(MAX_EXPRESSION_NESTING)}`;
    expect(compileExpression(nested)({})).toBe(1);
  });

  it("an expression longer than the bound is refused", () => {
    const e = failure(() => compileExpression(`x == "${"a".repeat(MAX_EXPRESSION_LENGTH)}"`));
    expect(e).toBeInstanceOf(SluiceError);
    expect((e as SluiceError).message).toContain(`longer than ${MAX_EXPRESSION_LENGTH} characters`);
  });

  it("a very long flat chain of operators gives a value or an invalid error, never an engine error", () => {
    const source = Array(4000).fill("a").join("+");
    const result = failure(() => compileExpression(source)({ a: 1 }));
    if (result instanceof Error) expect(result).toBeInstanceOf(SluiceError);
    else expect(result).toBe(4000);
  });

  it("cannot call what it reads, nor reach the process", () => {
    const row = { s: "x", o: {} };
    for (const source of ['o["constructor"]["constructor"]("return process")()', 's["constructor"]("x")']) {
      const e = failure(() => compileExpression(source)(row));
      expect(e, source).toBeInstanceOf(SluiceError);
      // not parsed, or parsed by Jexl as a call of an unnamed function, which no pool has
      expect((e as SluiceError).message, source).toMatch(/invalid expression|Jexl Function undefined is not defined/);
    }
    for (const source of ["globalThis", "process", "require", "this", "params"])
      expect(compileExpression(source)(row), source).toBeUndefined();
  });

  it("a chain of conditionals, which Jexl's parser also takes quadratic time over, is refused before parsing", () => {
    for (const source of [`${"a?:".repeat(3300)}a`, `${"a?a:".repeat(2499)}a`]) {
      const e = failure(() => compileExpression(source));
      expect(e).toBeInstanceOf(SluiceError);
      expect((e as SluiceError).message).toContain(`more than ${MAX_EXPRESSION_NESTING} conditionals`);
    }
    const most = `${"z ? 1 : ".repeat(MAX_EXPRESSION_NESTING)}2`;
    expect(compileExpression(most)({ z: false })).toBe(2);
  });

  it("nested relative filters, which multiply, stop at the budget instead of holding the event loop for hours", () => {
    const L = Array.from({ length: 1000 }, () => 1);
    const e = failure(() => compileExpression("L[.x || (L[.x || (L[.x]|length) == 0]|length) == 0]")({ L }));
    expect(e).toBeInstanceOf(SluiceError);
    expect((e as SluiceError).message).toContain(`more than ${MAX_EVALUATED_ITEMS.toLocaleString("en")} list items`);
    // `in` over a large list, inside a filter of it, counts too
    const big = Array.from({ length: 5000 }, (_, i) => ({ i }));
    expect(failure(() => compileExpression("big[.i in big]")({ big }))).toBeInstanceOf(SluiceError);
    // a filter of a list, or `in` over one, outside another filter grows only with the data: not counted
    expect(compileExpression("L[.x || true]|length")({ L })).toBe(1000);
  });

  it("text doubled by + stops at the budget instead of exhausting the heap", () => {
    const a = "€".repeat(900_000);
    const e = failure(() => compileExpression(Array(500).fill("a").join(" + "))({ a }));
    expect(e).toBeInstanceOf(SluiceError);
    expect((e as SluiceError).message).toContain(`more than ${MAX_EVALUATION_CHARS.toLocaleString("en")} characters`);
    // concat() and a list made text are counted before they are built
    for (const source of [`concat(${Array(500).fill("a").join(", ")})`, `[${Array(500).fill("a").join(", ")}]|string`])
      expect(
        failure(() => compileExpression(source)({ a })),
        source,
      ).toBeInstanceOf(SluiceError);
    expect(compileExpression('first + " " + last')({ first: "Ada", last: "Lovelace" })).toBe("Ada Lovelace");
  });

  it("one node run shares the budget: rules that nest lists in lists, or many rows, cannot add up past it", async () => {
    const { ctx } = nodeContext("transform");
    const row = `[${Array(300).fill("i").join(",")}]`;
    const nesting = transformConfig.parse({
      rules: [
        { type: "add_column", name: "c0", expression: row },
        { type: "add_column", name: "c1", expression: `[${Array(300).fill("c0").join(",")}]` },
        { type: "add_column", name: "c2", expression: `[${Array(300).fill("c1").join(",")}]` },
      ],
    });
    await expect(transformNode.run(ctx, nesting, [{ columns: ["i"], rows: [{ i: 1 }] }])).rejects.toThrow(
      /list items tested inside filters or written out in one node run/,
    );
    // each row's nested filter tests 10,000 items: 2,000 rows of them are over the budget
    const many = transformConfig.parse({ rules: [{ type: "filter", expression: "L[.v > (L[.v > 50]|length)]" }] });
    const L = Array.from({ length: 100 }, (_, v) => ({ v }));
    const rows = Array.from({ length: 2000 }, () => ({ L }));
    await expect(transformNode.run(ctx, many, [{ columns: ["L"], rows }])).rejects.toThrow(/list items/);
  });

  it("honest rules that grow with the data spend nothing of the budget but their new text", () => {
    const data = Array.from({ length: 10_000 }, (_, i) => ({
      name: `n${i}`,
      region: ["eu", "us", "ap"][i % 3],
      tags: ["a", "b", "c"],
      items: [{ qty: 1 }, { qty: 0 }],
      blob: Buffer.from("x".repeat(2048)),
    }));
    const budget = new EvaluationBudget();
    let out = { columns: ["name", "region", "tags", "items", "blob"], rows: data as Row[] };
    for (const rule of [
      { type: "filter", expression: 'region in ["eu", "us", "ap", "sa", "af", "oc"] && "b" in tags' },
      { type: "add_column", name: "label", expression: 'name + " (" + tags[0] + ")"' },
      { type: "add_column", name: "label2", expression: 'concat(name, " ", region)' },
      { type: "add_column", name: "positive", expression: "items[.qty > 0]" },
      { type: "add_column", name: "copy", expression: "coalesce(blob, tags)" },
      { type: "filter", expression: "blob" },
    ] as const)
      out = applyRule(out, rule, {}, budget);
    expect(out.rows).toHaveLength(10_000);
    expect(budget.items).toBe(0);
    // the new characters of the labels: what each has beyond its longest input
    const labels = out.rows.reduce((n, r) => n + String(r.label).length + String(r.label2).length, 0);
    expect(budget.chars).toBeLessThanOrEqual(labels);
  });
});
