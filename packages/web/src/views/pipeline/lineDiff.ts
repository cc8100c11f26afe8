export type DiffLine = { kind: "same" | "add" | "del"; text: string; a?: number; b?: number };

/**
 * A line diff of two texts by longest common subsequence (O(n·m) memory, fine for pipeline definitions of a few
 * thousand lines). Lines only in `a` are `del`, only in `b` are `add`.
 */
export function lineDiff(a: string, b: string): DiffLine[] {
  const x = a.split("\n");
  const y = b.split("\n");
  // trim the common head and tail first: most versions differ in a few lines
  let head = 0;
  while (head < x.length && head < y.length && x[head] === y[head]) head++;
  let tail = 0;
  while (tail < x.length - head && tail < y.length - head && x[x.length - 1 - tail] === y[y.length - 1 - tail]) tail++;
  const xs = x.slice(head, x.length - tail);
  const ys = y.slice(head, y.length - tail);
  const n = xs.length;
  const m = ys.length;
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] =
        xs[i] === ys[j]
          ? table[(i + 1) * width + j + 1]! + 1
          : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  for (let k = 0; k < head; k++) out.push({ kind: "same", text: x[k]!, a: k + 1, b: k + 1 });
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && xs[i] === ys[j]) {
      out.push({ kind: "same", text: xs[i]!, a: head + i + 1, b: head + j + 1 });
      i++;
      j++;
    } else if (i < n && (j >= m || table[(i + 1) * width + j]! >= table[i * width + j + 1]!)) {
      out.push({ kind: "del", text: xs[i]!, a: head + i + 1 });
      i++;
    } else {
      out.push({ kind: "add", text: ys[j]!, b: head + j + 1 });
      j++;
    }
  }
  for (let k = 0; k < tail; k++) {
    out.push({ kind: "same", text: x[n + head + k]!, a: n + head + k + 1, b: m + head + k + 1 });
  }
  return out;
}

/** JSON with object keys sorted at every level, so key order never shows up as a change. */
export function stableJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === "object") {
      return Object.fromEntries(
        Object.keys(v as Record<string, unknown>)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return JSON.stringify(sort(value), null, 2);
}
