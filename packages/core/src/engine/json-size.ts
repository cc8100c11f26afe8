/**
 * About how many characters `value` takes written as JSON, found without writing it: counts the characters of text,
 * a few per number or literal, four per byte of a binary value (Node writes a Buffer as an array of numbers). Stops
 * counting as soon as `limit` is passed, and then returns a size over it.
 */
export function jsonSizeUpTo(value: unknown, limit: number): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") size += v.length + 2;
    else if (v === null || typeof v !== "object") size += 8;
    else if (ArrayBuffer.isView(v)) size += 4 * v.byteLength + 24;
    else if (v instanceof Date) size += 26;
    else if (Array.isArray(v)) {
      size += 2 + v.length;
      for (const item of v) stack.push(item);
    } else {
      for (const key of Object.keys(v)) {
        size += key.length + 4;
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
    if (size > limit) return size;
  }
  return size;
}
