import type { Slices } from "../slices.js";

/**
 * A JSON text up to this many characters is parsed in one call (a few milliseconds); a longer one in slices. One call
 * on 35 MB held the server's thread for 0.2–0.4 s.
 */
export const WHOLE_JSON_CHARS = 256 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** Whitespace as JSON has it: space, tab, line feed, carriage return (not every space Unicode has). */
const JSON_SPACE = /^[ \t\n\r]*/;
const onlyJsonSpace = (text: string) => JSON_SPACE.exec(text)![0].length === text.length;

/** `text` is not a JSON array that the pieces can be read from: JSON.parse of the whole says why. */
class NotPieceable extends Error {}

/**
 * Where the elements of the JSON array in `text` end: the offsets of the commas between them and of the closing `]`,
 * found in slices. Strings are passed over (a comma or bracket in one is text); nesting is counted, not checked:
 * JSON.parse checks each piece. Throws NotPieceable unless `text` is `[`, then elements, then `]`, with only
 * whitespace around.
 */
async function elementEnds(text: string, open: number, slices: Slices): Promise<number[]> {
  const ends: number[] = [];
  let depth = 1;
  let inString = false;
  let escaped = false; // the character before was a backslash in a string (perhaps at the end of the piece before)
  let closedAt = -1;
  await slices.each(text.length - open - 1, (from, to) => {
    if (closedAt >= 0) return;
    for (let i = open + 1 + from; i < open + 1 + to; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
      } else if (c === QUOTE) inString = true;
      else if (c === OPEN_ARRAY || c === OPEN_OBJECT) depth++;
      else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
        if (--depth === 0) {
          ends.push(i);
          closedAt = i;
          return;
        }
      } else if (c === COMMA && depth === 1) ends.push(i);
    }
  });
  if (closedAt < 0 || !onlyJsonSpace(text.slice(closedAt + 1))) throw new NotPieceable();
  return ends;
}

/**
 * What `JSON.parse(text)` gives (a BOM before it allowed), or the error it throws; a JSON array is parsed a piece of
 * elements at a time in `slices` (about 10 ms each), not holding the server's thread for the whole text. A text that
 * is not one, or that the pieces cannot be read from, is parsed in one call.
 */
export async function parseJsonInSlices(text: string, slices: Slices): Promise<unknown> {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const open = JSON_SPACE.exec(body)![0].length;
  if (body.charCodeAt(open) !== OPEN_ARRAY) return JSON.parse(body) as unknown;
  try {
    const ends = await elementEnds(body, open, slices);
    if (ends.length === 1 && onlyJsonSpace(body.slice(open + 1, ends[0]))) return [];
    const elements: unknown[] = [];
    await slices.each(ends.length, (from, to) => {
      const start = from === 0 ? open + 1 : ends[from - 1]! + 1;
      let piece: unknown[];
      try {
        piece = JSON.parse(`[${body.slice(start, ends[to - 1])}]`) as unknown[];
      } catch {
        throw new NotPieceable();
      }
      // `[1,,2]` split at its empty element would read as `[1]`, `[]`, `[2]`: each piece must hold as many as it spans
      if (piece.length !== to - from) throw new NotPieceable();
      for (const element of piece) elements.push(element);
    });
    return elements;
  } catch (e) {
    if (!(e instanceof NotPieceable)) throw e;
    return JSON.parse(body) as unknown; // its error says what is wrong, and where
  }
}
