/** `String.prototype.isWellFormed` / `toWellFormed` (ES2024, in Node 20), which this project's TypeScript lib lacks. */
interface UnicodeString {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/**
 * Whether `text` is valid Unicode: no lone surrogate (half of a character, such as half an emoji cut off in the data),
 * which JSON's `\ud800` can spell but no database stores as sent (they store U+FFFD instead).
 */
export const isWellFormedText = (text: string): boolean => (text as unknown as UnicodeString).isWellFormed();

/** `text` with each lone surrogate made U+FFFD, as a UTF-8 encoding makes it. */
export const wellFormedText = (text: string): string => (text as unknown as UnicodeString).toWellFormed();
