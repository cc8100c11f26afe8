import { describe, expect, it } from "vitest";
import { SluiceError } from "../../src/errors.js";
import { compileExpression, MAX_EXPRESSION_LENGTH, MAX_EXPRESSION_NESTING } from "../../src/engine/expression.js";
import { transformConfig, transformNode } from "../../src/engine/nodes/transform.js";
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
});
