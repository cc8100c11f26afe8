import { SluiceError } from "../errors.js";

/**
 * Longest text one `replace` may make (the expression transform and the `transform` rule). Without a bound a short
 * expression could exhaust the heap, which ends the process: `s|replace("", s)|replace("", s)|…` multiplies the
 * length by that of `s` at every step.
 */
export const MAX_REPLACED_LENGTH = 1_000_000;

/** Every occurrence of `search` in `text` replaced (an empty `search` puts `replacement` between characters). */
export function replaceText(text: string, search: string, replacement: string): string {
  let count = 0;
  if (search === "") count = Math.max(0, text.length - 1);
  else for (let i = text.indexOf(search); i !== -1; i = text.indexOf(search, i + search.length)) count++;
  const length = text.length + count * (replacement.length - search.length);
  if (length > MAX_REPLACED_LENGTH)
    throw new SluiceError(
      "invalid",
      `replace would make a text of ${length} characters; at most ${MAX_REPLACED_LENGTH} are allowed`,
    );
  return text.split(search).join(replacement);
}
