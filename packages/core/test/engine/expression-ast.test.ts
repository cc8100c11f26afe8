import jexlModule from "jexl";
import { describe, expect, it } from "vitest";
import { compileJexlAst, type JexlAst, type JexlGrammar } from "../../src/engine/expression-ast.js";
import { compileExpression } from "../../src/engine/expression.js";

// The closures must give what Jexl's own evaluator gives, value for value and error for error: each expression below
// (and a few thousand generated ones) is evaluated both ways over several contexts.
interface Expr {
  evalSync(context: object): unknown;
  _getAst(): JexlAst;
}
const { Jexl } = jexlModule as unknown as {
  Jexl: new () => {
    compile(s: string): Expr;
    _grammar: JexlGrammar;
    addTransform(n: string, f: (...a: unknown[]) => unknown): void;
    addFunction(n: string, f: (...a: unknown[]) => unknown): void;
  };
};
const jexl = new Jexl();
jexl.addTransform("upper", (v) => String(v).toUpperCase());
jexl.addTransform("pad", (v, n, c) => String(v).padStart(Number(n), String(c ?? " ")));
jexl.addTransform("boom", () => {
  throw new Error("transform boom");
});
jexl.addFunction("sum", (...a) => a.reduce((x: number, y) => x + Number(y), 0));
jexl.addFunction("list", (...a) => a);

const contexts: Record<string, unknown>[] = [
  { a: 3, b: 4, s: "ok", t: "Hello", n: null, z: 0, e: "", f: 2.5, flag: true },
  { a: -1, b: "4", s: "bad", t: "", n: null, z: 0, f: Number.NaN, flag: false, list: [1, 2, 3] },
  {
    a: 10,
    b: 0,
    s: "ok",
    obj: {
      x: { y: 7 },
      arr: [
        { k: 1, v: "one" },
        { k: 2, v: "two" },
      ],
      name: "n",
    },
    people: [
      { first: "Lana", age: 30 },
      { first: "Cyril", age: 50 },
    ],
    list: ["a", "b"],
  },
  { arr: [0, null, 5, "", false, { x: 1 }], x: 1, flag: true, xs: [0, 1], n: null, s: "ok" },
  {},
];

type Outcome = { value: unknown } | { error: string };
const outcome = (fn: () => unknown): Outcome => {
  try {
    return { value: fn() };
  } catch (e) {
    // Jexl's promise shim re-wraps some errors, adding `Error: ` before the message (one per level)
    return { error: (e as Error).message.replace(/^((Type|Range|Reference)?Error: )+/, "") };
  }
};

function expectSame(source: string): void {
  const expr = jexl.compile(source);
  const closures = compileJexlAst(expr._getAst(), jexl._grammar);
  expect(closures, `${source} compiles to closures`).not.toBeNull();
  for (const ctx of contexts) {
    const want = outcome(() => expr.evalSync(ctx));
    const got = outcome(() => (closures as (c: Record<string, unknown>) => unknown)(ctx));
    expect(got, `${source} over ${JSON.stringify(ctx)}`).toEqual(want);
  }
}

const written = [
  "1",
  '"str"',
  "true",
  "a + b",
  "a - b * 2 / 4",
  "a // 2",
  "a % 2 ^ 2",
  "(a + b) * f",
  "s + t",
  "a == b",
  'b == "4"',
  "a != 3",
  "a > b",
  "a >= 3",
  "a < b",
  "a <= -1",
  "!flag",
  "!!s",
  "flag && a",
  "n && a",
  "z || e || s",
  "z || e",
  'a > 1 && s == "ok" || t',
  "a ? b : s",
  "n ? b : s",
  "a ?: s",
  "missing",
  "missing.deeper.still",
  "obj.x.y",
  "obj.arr.k",
  "obj.arr[1].v",
  'obj["name"]',
  'obj["na" + "me"]',
  "obj.arr[.k == 2].v",
  "obj.arr[.k > 0]",
  "people[.age > 40].first",
  "people[.first == s]",
  "list[0]",
  "list[flag]",
  "list[true]",
  "list[false]",
  "missing[0]",
  "missing[.x == 1]",
  "s[.length > 1]",
  "arr[.x == 1]",
  "arr[.x]",
  "n[.x]",
  "xs[.flag]",
  "arr[.x == 1][.x]",
  "obj.arr[.k == x.y]",
  '"a" in list',
  '"el" in t',
  "1 in list",
  "a in b",
  "[1, a, s]",
  "[]",
  "{ one: 1, two: a + b, three: [s] }",
  "{}",
  "s|upper",
  "t|upper|pad(8)",
  't|pad(a + 5, "*")',
  "s|boom",
  "sum(a, b, 1)",
  "list(a, s, [1])",
  "nope(1)",
  "s|nope",
  's["length"]',
  "s.length",
  "list.length",
];

describe("Jexl AST closures", () => {
  it.each(written)("%s gives what Jexl gives", (source) => expectSame(source));

  it("give what Jexl gives for 3,000 generated expressions", () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const atoms = [
      "a",
      "b",
      "s",
      "t",
      "n",
      "z",
      "e",
      "f",
      "flag",
      "missing",
      "obj.x.y",
      "list",
      "1",
      "0",
      '"ok"',
      "2.5",
    ];
    const binOps = ["+", "-", "*", "/", "//", "%", "^", "==", "!=", ">", ">=", "<", "<=", "&&", "||", "in"];
    const gen = (depth: number): string => {
      const k = depth > 3 ? 0 : rand(7);
      if (k <= 1) return atoms[rand(atoms.length)] as string;
      if (k === 2) return `!(${gen(depth + 1)})`;
      if (k === 3) return `(${gen(depth + 1)} ? ${gen(depth + 1)} : ${gen(depth + 1)})`;
      if (k === 4) return `(${atoms[rand(atoms.length)]}|upper)`;
      return `(${gen(depth + 1)} ${binOps[rand(binOps.length)]} ${gen(depth + 1)})`;
    };
    for (let i = 0; i < 3000; i++) expectSame(gen(0));
  });

  it("leave an AST kind they do not know to Jexl", () => {
    expect(compileJexlAst({ type: "SomethingNew" }, jexl._grammar)).toBeNull();
    expect(
      compileJexlAst({ type: "BinaryExpression", operator: "<=>", left: { type: "Literal", value: 1 } }, jexl._grammar),
    ).toBeNull();
  });

  it("read only own data, where Jexl also reads what a value inherits", () => {
    const ctx = contexts[2] as Record<string, unknown>;
    for (const [source, jexlGives] of [
      ['obj["constructor"]', Object],
      ['obj["constructor"].name', "Object"],
      ['s["constructor"]', String],
      ['obj["__proto__"]', Object.prototype],
      ['obj["hasOwnProperty"]', Object.prototype.hasOwnProperty],
      ["s.toUpperCase", String.prototype.toUpperCase],
      ['list["map"]', Array.prototype.map],
      ["list[.toUpperCase]", ["a", "b"]],
    ] as const) {
      expect(jexl.compile(source).evalSync(ctx), source).toEqual(jexlGives);
      const closures = compileJexlAst(jexl.compile(source)._getAst(), jexl._grammar)!;
      expect(closures(ctx), source).toEqual(source.includes("[.") ? [] : undefined);
    }
  });

  it("read a binary value's length, and its bytes", () => {
    const blob = Buffer.from("abc");
    expect(compileExpression("blob.length")({ blob })).toBe(3);
    expect(compileExpression("blob[0]")({ blob })).toBe(97);
    expect(compileExpression('blob["toString"]')({ blob })).toBeUndefined();
  });

  it("refuse prototype names: Jexl does not parse them, and a call names only a pool's own function", () => {
    for (const source of ['constructor("x")', "s|constructor", "s.__proto__", "toString()", "s|hasOwnProperty"]) {
      expect(() => compileExpression(source)({ s: "x" }), source).toThrow(/invalid expression/);
    }
    const call = compileJexlAst(
      { type: "FunctionCall", pool: "functions", name: "constructor", args: [] },
      jexl._grammar,
    );
    expect(() => call?.({}), "an AST calling constructor").toThrow("Jexl Function constructor is not defined.");
  });
});
