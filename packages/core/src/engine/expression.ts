import jexlModule from "jexl";
// Jexl's own tokenizer (linear in the text), to measure nesting before its parser (quadratic in nesting) runs
import Lexer from "jexl/dist/Lexer.js";
import { SluiceError } from "../errors.js";
import { replaceText } from "./replace-text.js";
import { compileJexlAst, type EvaluationBudget, type JexlAst, type JexlGrammar } from "./expression-ast.js";

export {
  EvaluationBudget,
  MAX_EVALUATED_ITEMS,
  MAX_EVALUATION_CHARS,
  MAX_MADE_CHARS,
  spendRuleText,
  spendWrittenValue,
} from "./expression-ast.js";

/**
 * The one safe expression evaluator of the engine (`transform` add_column/filter, `condition`): Jexl, an
 * interpreter over a parsed AST — never `eval` or `new Function`. Expressions see only the variables given to them
 * (e.g. a row's columns, `params`, `row_count`). Syntax: `amount * 1.2`, `status == "ok" && qty > 0`,
 * `name|upper`, `a ? b : c`, `x in ["a","b"]`. Jexl parses; the parsed AST is evaluated by closures over it
 * (expression-ast.ts), which read only values' own data: `row["constructor"]` or `params["__proto__"]` is undefined.
 */
const { Jexl } = jexlModule as unknown as { Jexl: new () => JexlInstance };

interface JexlExpression {
  _getAst?(): JexlAst;
}
interface JexlInstance {
  _grammar?: JexlGrammar;
  compile(expression: string): JexlExpression;
  addTransform(name: string, fn: (value: unknown, ...args: unknown[]) => unknown): void;
  addFunction(name: string, fn: (...args: unknown[]) => unknown): void;
}

const jexl = new Jexl();
/** Longest expression text: real ones are a line or a list of values; this keeps a parse under tens of ms. */
export const MAX_EXPRESSION_LENGTH = 10_000;
/**
 * Deepest nesting of `(`, `[` and `{`, and most conditionals (`?`): Jexl's parser takes time quadratic in either
 * (2,000 levels: about 1.5 s of the event loop on this machine).
 */
export const MAX_EXPRESSION_NESTING = 64;
const str = (v: unknown) => (v === null || v === undefined ? "" : String(v));
const transforms: Record<string, (value: unknown, ...args: unknown[]) => unknown> = {
  upper: (v) => str(v).toUpperCase(),
  lower: (v) => str(v).toLowerCase(),
  trim: (v) => str(v).trim(),
  length: (v) => (Array.isArray(v) ? v.length : str(v).length),
  number: (v) => (v === null || v === undefined || v === "" ? null : Number(v)),
  string: (v) => str(v),
  round: (v, digits) => {
    const f = 10 ** Number(digits ?? 0);
    return Math.round(Number(v) * f) / f;
  },
  abs: (v) => Math.abs(Number(v)),
  floor: (v) => Math.floor(Number(v)),
  ceil: (v) => Math.ceil(Number(v)),
  substring: (v, start, end) => str(v).substring(Number(start ?? 0), end === undefined ? undefined : Number(end)),
  replace: (v, search, replacement) => replaceText(str(v), str(search), str(replacement)),
  contains: (v, search) => str(v).includes(str(search)),
  startsWith: (v, search) => str(v).startsWith(str(search)),
  endsWith: (v, search) => str(v).endsWith(str(search)),
  default: (v, fallback) => (v === null || v === undefined || v === "" ? fallback : v),
};
for (const [name, fn] of Object.entries(transforms)) jexl.addTransform(name, fn);
jexl.addFunction("concat", (...args) => args.map(str).join(""));
jexl.addFunction("coalesce", (...args) => args.find((a) => a !== null && a !== undefined) ?? null);
jexl.addFunction("now", () => new Date().toISOString());
jexl.addFunction("isNull", (v) => v === null || v === undefined);

/**
 * Evaluates over `variables`. Evaluations given one `budget` share its limits (a node run gives all its evaluations
 * one); without one, the evaluation has a budget of its own.
 */
export type CompiledExpression = (variables: Record<string, unknown>, budget?: EvaluationBudget) => unknown;

/** Compiled expressions by source: a pipeline's expressions are parsed once, not on every run. */
const COMPILED = new Map<string, CompiledExpression>();
const MAX_COMPILED = 5000;

/**
 * Parses once per source text (kept for later runs; a parsed expression holds no state); evaluation is
 * synchronous. A syntax error is a SluiceError("invalid") naming the expression.
 */
export function compileExpression(source: string): CompiledExpression {
  let fn = COMPILED.get(source);
  if (!fn) {
    fn = compile(source);
    if (COMPILED.size >= MAX_COMPILED) COMPILED.delete(COMPILED.keys().next().value as string);
    COMPILED.set(source, fn);
  }
  return fn;
}

function compile(source: string): CompiledExpression {
  const invalid = (why: string) => new SluiceError("invalid", `invalid expression "${source}": ${why}`);
  if (source.length > MAX_EXPRESSION_LENGTH)
    throw invalid(`longer than ${MAX_EXPRESSION_LENGTH} characters (${source.length})`);
  let compiled: JexlExpression;
  let depth: number;
  let conditionals: number;
  try {
    const tokens = new Lexer(jexl._grammar).tokenize(source);
    depth = nestingDepth(tokens);
    // `a ? b : c ? …` nests without brackets, and Jexl's parser is quadratic in it too
    conditionals = tokens.filter((t) => t.type === "question").length;
  } catch (e) {
    throw invalid((e as Error).message);
  }
  if (depth > MAX_EXPRESSION_NESTING) throw invalid(`nested deeper than ${MAX_EXPRESSION_NESTING} levels (${depth})`);
  if (conditionals > MAX_EXPRESSION_NESTING)
    throw invalid(`more than ${MAX_EXPRESSION_NESTING} conditionals (${conditionals}); split it into several rules`);
  try {
    compiled = jexl.compile(source);
  } catch (e) {
    throw invalid((e as Error).message);
  }
  // `_getAst` and `_grammar` are Jexl's own (2.x). Only the closures evaluate: they read own data only (readOwn),
  // where Jexl's evaluator would read inherited properties too
  const ast = compiled._getAst?.();
  const evaluate = ast && jexl._grammar ? compileJexlAst(ast, jexl._grammar) : null;
  if (!evaluate) throw invalid("too complex to evaluate (split it into several rules)");
  return (variables, budget) => {
    try {
      return evaluate(variables, budget);
    } catch (e) {
      throw new SluiceError("invalid", `expression "${source}" failed: ${(e as Error).message}`);
    }
  };
}

function nestingDepth(tokens: readonly { type: string }[]): number {
  let depth = 0;
  let deepest = 0;
  for (const { type } of tokens) {
    if (type === "openParen" || type === "openBracket" || type === "openCurl") deepest = Math.max(deepest, ++depth);
    else if (type === "closeParen" || type === "closeBracket" || type === "closeCurl") depth--;
  }
  return deepest;
}
