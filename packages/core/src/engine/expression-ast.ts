/**
 * Jexl's parsed AST turned into a tree of plain closures, evaluated synchronously: the same language, the same
 * operators (each binary and unary operator runs the Jexl grammar's own `eval`), the same functions and transforms.
 * Jexl's `evalSync` walks the AST through a promise shim, allocating an evaluator and a promise per node: about 6 µs
 * per evaluation here, the largest cost of a chain of `transform` nodes; these closures take well under 1 µs. No code
 * is generated (no `eval`, no `new Function`): every closure below is a fixed function over one AST node.
 *
 * An AST node of a kind not listed here makes `compileJexlAst` return `null`; the caller then refuses the expression.
 * Every kind is checked against Jexl's own evaluation by `expression-ast.test.ts`: the same value, or an error where
 * Jexl fails. Three differences remain. Property reads see only a value's own data (readOwn), where Jexl also reads
 * what the value inherits (`constructor`, `__proto__`, methods). Jexl's message can carry extra `Error: ` prefixes.
 * Jexl also evaluates every operand before it fails, while the closures stop at the first error; that matters only
 * for functions with side effects, and none has any.
 */

import { ownProperty } from "./dataset.js";

/** The parts of Jexl's grammar the evaluation reads: operators by symbol, and the function and transform pools. */
export interface JexlGrammar {
  elements: Record<string, { eval?: (...operands: unknown[]) => unknown }>;
  functions: Record<string, (...args: unknown[]) => unknown>;
  transforms: Record<string, (...args: unknown[]) => unknown>;
}

/** A Jexl AST node (jexl/lib/parser): `type` says which of the fields below it has. */
export interface JexlAst {
  type: string;
  value?: unknown;
  operator?: string;
  left?: JexlAst;
  right?: JexlAst;
  test?: JexlAst;
  consequent?: JexlAst;
  alternate?: JexlAst;
  subject?: JexlAst;
  expr?: JexlAst;
  relative?: boolean;
  from?: JexlAst;
  name?: string;
  pool?: string;
  args?: JexlAst[];
}

/** Evaluates against the context; `rel` is the element a relative filter (`list[.x > 1]`) is testing. */
type Eval = (ctx: Record<string, unknown>, rel: unknown) => unknown;

const POOL_NAMES: Record<string, string> = { functions: "Jexl Function", transforms: "Transform" };

class Unsupported extends Error {}

/**
 * What an expression reads of a value: its own property `key`, never one it inherits (`constructor`, `__proto__`,
 * a method) and never a function. Expressions thus see data only: a row's columns, `params`, a list's items and
 * length, a text's characters and length; they can neither reach `Function` or `Object.prototype` nor put a
 * function into a row, where later code (`toJSON`, `then`) would call it.
 */
export function readOwn(base: unknown, key: unknown): unknown {
  if (base === undefined || base === null) return undefined;
  // a binary value's (BLOB column's) length is its own datum, though a getter it inherits
  if (key === "length" && ArrayBuffer.isView(base) && "length" in base) return base.length;
  const k = key as PropertyKey;
  if (!Object.hasOwn(base as object, k)) return undefined;
  const value = (base as Record<PropertyKey, unknown>)[k];
  return typeof value === "function" ? undefined : value;
}

/**
 * What evaluations may do in all: one node run's evaluations share one budget (a `transform` over all its rows).
 * Work that grows with the data (a filter over a list column, `in`, texts as long as their inputs) is not counted;
 * what multiplies is: list items tested by filters and `in` inside another filter, new characters of text, and the
 * items of the lists and objects the expressions write out. Each limit fails the expression with an error naming it.
 */
export class EvaluationBudget {
  /** List items tested inside a filter, and items of lists and objects written out. */
  items = 0;
  /** New characters of text made: what a result has beyond its longest input. */
  chars = 0;
}
/** About a second of filtering on this machine. */
export const MAX_EVALUATED_ITEMS = 10_000_000;
/** New characters of text one evaluation may make (a replace makes at most 1,000,000). */
export const MAX_EVALUATION_CHARS = 10_000_000;
/** New characters of text one node run may make: about 256 per row of a million rows. */
export const MAX_MADE_CHARS = 256_000_000;

/** The budget of the evaluation under way, and its own count of new characters: one evaluation at a time. */
let budget = new EvaluationBudget();
let evaluationChars = 0;
/** How many relative filters the evaluation is inside of: work inside one multiplies with its list. */
let filterDepth = 0;
/** Lists and objects made by literals: the only values whose size can multiply from rule to rule. */
const MADE = new WeakSet<object>();

function spendItems(n: number): void {
  if ((budget.items += n) > MAX_EVALUATED_ITEMS)
    throw new Error(
      `more than ${MAX_EVALUATED_ITEMS.toLocaleString("en")} list items tested inside filters or written out in ` +
        "one node run; filter the rows first, or split the work",
    );
}

/**
 * Charges `budget` (a node run's) with the new characters of a text a rule made of another (`replace`): the rule
 * form made up to 1,000,000 characters a row uncounted, and 6,000 rows of them ended the process out of memory
 * (found by a helper's attack).
 */
export function spendRuleText(spend: EvaluationBudget, made: number, input: number): void {
  budget = spend;
  evaluationChars = 0;
  spendNewChars(made, input);
}

function spendNewChars(made: number, longestInput: number): void {
  const added = made - longestInput;
  if (added <= 0) return;
  if ((evaluationChars += added) > MAX_EVALUATION_CHARS)
    throw new Error(`makes more than ${MAX_EVALUATION_CHARS.toLocaleString("en")} characters of text`);
  if ((budget.chars += added) > MAX_MADE_CHARS)
    throw new Error(`more than ${MAX_MADE_CHARS.toLocaleString("en")} characters of text made in one node run`);
}

const longestText = (values: readonly unknown[]) => {
  let longest = 0;
  for (const v of values) if (typeof v === "string" && v.length > longest) longest = v.length;
  return longest;
};

/**
 * The text a call could make of its arguments, counted before the call (`concat` of many long texts, or a list
 * made text), up to the limit: more than the evaluation may still make fails without building it.
 */
function textSizeOf(value: unknown, limit: number): number {
  if (typeof value === "string") return value.length;
  if (typeof value !== "object" || value === null || !Array.isArray(value)) return 0;
  let size = value.length;
  for (const item of value) {
    if (size > limit) break;
    size += textSizeOf(item, limit - size);
  }
  return size;
}

/**
 * Counts the items of a value an expression writes out (`add_column`): of every list and object a literal made,
 * through every nested one (shared ones each time), since rules can nest one in the next, each a few references to
 * the last, and later steps (previews, sinks) copy them out in full. Lists and values passed on from the data count
 * one each.
 */
export function spendWrittenValue(value: unknown, spend: EvaluationBudget): void {
  budget = spend;
  spendMade(value);
}

/**
 * Counts a made value's items, through every nested one. A value that was not made but holds one directly (a row
 * that an earlier rule wrote a made list into, read whole as `row`) is walked too: skipped, it let 40 rules of
 * `[row, row]` double one row's size 40 times, and walking that for JSON held the server's thread for good (found
 * by a helper's attack).
 */
function spendMade(value: unknown): void {
  if (typeof value !== "object" || value === null || ArrayBuffer.isView(value)) return;
  if (!MADE.has(value) && !holdsMade(value)) return;
  const items = Array.isArray(value) ? value : Object.values(value);
  spendItems(items.length);
  for (const item of items) spendMade(item);
}

/**
 * Whether an object (a row: not a list, which is made or comes from the data) holds a made list or object among
 * its values. Not counted itself (a row of the data written out is not work that multiplies); each time it is
 * looked into, the made list that referenced it was counted, item by item.
 */
function holdsMade(value: object): boolean {
  if (Array.isArray(value)) return false;
  return Object.values(value).some((item) => typeof item === "object" && item !== null && MADE.has(item));
}

/** Closures for `ast`, or `null` when it holds a node kind this compiler does not know. */
export function compileJexlAst(
  ast: JexlAst,
  grammar: JexlGrammar,
): ((context: Record<string, unknown>, spend?: EvaluationBudget) => unknown) | null {
  let root: Eval;
  try {
    root = compileNode(ast, grammar);
  } catch {
    // an unknown kind, or a tree too deep to compile by recursion (`a + a + … + a`, thousands of terms)
    return null;
  }
  return (context, spend = new EvaluationBudget()) => {
    budget = spend;
    evaluationChars = 0;
    filterDepth = 0;
    return root(context, context);
  };
}

function compileNode(ast: JexlAst, grammar: JexlGrammar): Eval {
  const sub = (node: JexlAst | undefined): Eval => {
    if (!node) throw new Unsupported(`${ast.type} without an operand`);
    return compileNode(node, grammar);
  };
  switch (ast.type) {
    case "Literal": {
      const value = ast.value;
      return () => value;
    }
    case "Identifier":
      return identifier(ast, sub);
    case "BinaryExpression":
      return binary(ast, grammar, sub);
    case "UnaryExpression": {
      const op = grammar.elements[ast.operator ?? ""]?.eval;
      if (!op) throw new Unsupported(`unary operator ${ast.operator}`);
      const right = sub(ast.right);
      return (c, r) => op(right(c, r));
    }
    case "ConditionalExpression": {
      const test = sub(ast.test);
      const alternate = sub(ast.alternate);
      const consequent = ast.consequent ? sub(ast.consequent) : null;
      return (c, r) => {
        const t = test(c, r);
        if (!t) return alternate(c, r);
        return consequent ? consequent(c, r) : t;
      };
    }
    case "FilterExpression":
      return filter(ast, sub);
    case "ArrayLiteral": {
      const items = (ast.value as JexlAst[]).map(sub);
      return (c, r) => {
        const made = items.map((item) => item(c, r));
        MADE.add(made);
        return made;
      };
    }
    case "ObjectLiteral": {
      const entries = Object.entries(ast.value as Record<string, JexlAst>).map(([k, v]) => [k, sub(v)] as const);
      return (c, r) => {
        const result: Record<string, unknown> = {};
        for (const [k, v] of entries) ownProperty(result, k, v(c, r));
        MADE.add(result);
        return result;
      };
    }
    case "FunctionCall":
      return call(ast, grammar, sub);
    default:
      throw new Unsupported(ast.type);
  }
}

function identifier(ast: JexlAst, sub: (node: JexlAst | undefined) => Eval): Eval {
  const name = ast.value as string;
  if (!ast.from) {
    if (ast.relative) return (_c, r) => readOwn(r, name);
    return (c) => readOwn(c, name);
  }
  const from = sub(ast.from);
  return (c, r) => {
    let base = from(c, r);
    if (base === undefined || base === null) return undefined;
    if (Array.isArray(base)) {
      base = readOwn(base, 0);
      // as Jexl: a property of an empty list's first item is a TypeError
      if (base === undefined || base === null) return (base as unknown as Record<string, unknown>)[name];
    }
    return readOwn(base, name);
  };
}

function binary(ast: JexlAst, grammar: JexlGrammar, sub: (node: JexlAst | undefined) => Eval): Eval {
  const left = sub(ast.left);
  const right = sub(ast.right);
  // Jexl's grammar gives these two only an `evalOnDemand` over its promises: the right side is evaluated only when
  // the left does not decide, and the deciding operand itself is the result
  if (ast.operator === "&&") return (c, r) => left(c, r) && right(c, r);
  if (ast.operator === "||") return (c, r) => left(c, r) || right(c, r);
  const op = grammar.elements[ast.operator ?? ""]?.eval;
  if (!op) throw new Unsupported(`binary operator ${ast.operator}`);
  if (ast.operator === "in")
    return (c, r) => {
      const l = left(c, r);
      const rv = right(c, r);
      // inside a filter, `in` over a list tests length × length items
      if (filterDepth > 0 && Array.isArray(rv)) spendItems(rv.length);
      return op(l, rv);
    };
  if (ast.operator === "+")
    return (c, r) => {
      const l = left(c, r);
      const rv = right(c, r);
      const v = op(l, rv);
      if (typeof v === "string") spendNewChars(v.length, longestText([l, rv]));
      return v;
    };
  return (c, r) => op(left(c, r), right(c, r));
}

function filter(ast: JexlAst, sub: (node: JexlAst | undefined) => Eval): Eval {
  const subject = sub(ast.subject);
  const expr = sub(ast.expr);
  if (ast.relative) {
    return (c, r) => {
      const s = subject(c, r);
      const list = Array.isArray(s) ? s : s === undefined ? [] : [s];
      // nested filters multiply: `l[.x || (l[.x || (l[.x]|length) == 0]|length) == 0]` tests length³ items
      if (filterDepth > 0) spendItems(list.length);
      filterDepth++;
      try {
        // as Jexl: a falsy element (0, "", null) is no relative context, so `.x` then reads the expression's context
        const kept = list.filter((elem) => expr(c, elem || c));
        // part of a made list is made too: what it holds is counted when written out
        if (MADE.has(list)) MADE.add(kept);
        return kept;
      } finally {
        filterDepth--;
      }
    };
  }
  return (c, r) => {
    const s = subject(c, r);
    const key = expr(c, r);
    if (typeof key === "boolean") return key ? s : undefined;
    // as Jexl: indexing nothing (`missing[0]`) is a TypeError, where `missing.x` is undefined
    if (s === undefined || s === null) return (s as unknown as Record<string, unknown>)[key as string];
    return readOwn(s, key);
  };
}

function call(ast: JexlAst, grammar: JexlGrammar, sub: (node: JexlAst | undefined) => Eval): Eval {
  const poolName = POOL_NAMES[ast.pool ?? ""];
  if (!poolName) throw new Unsupported(`pool ${ast.pool}`);
  const pool = grammar[ast.pool as "functions" | "transforms"];
  const name = ast.name as string;
  const args = (ast.args ?? []).map(sub);
  return (c, r) => {
    // looked up at each call, as Jexl does; only the pool's own entries (not `constructor` or `toString`)
    const fn = Object.hasOwn(pool, name) ? pool[name] : undefined;
    if (!fn) throw new Error(`${poolName} ${name} is not defined.`);
    const values = args.map((arg) => arg(c, r));
    const longest = longestText(values);
    // what the call could make is checked before it makes it
    let could = 0;
    for (const v of values) could += textSizeOf(v, MAX_EVALUATION_CHARS + longest);
    if (could - longest > MAX_EVALUATION_CHARS - evaluationChars) spendNewChars(could, longest);
    const result = fn(...values);
    if (typeof result === "string") spendNewChars(result.length, longest);
    return result;
  };
}
