/** Jexl's tokenizer (jexl 2.x ships no types for it): one token per operator, bracket, literal or identifier. */
declare module "jexl/dist/Lexer.js" {
  export default class Lexer {
    constructor(grammar: unknown);
    tokenize(text: string): { type: string; value: unknown; raw: string }[];
  }
}
