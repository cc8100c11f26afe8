import { describe, expect, it } from "vitest";
import { SHOWN_ITEMS, SHOWN_TEXT_CHARS, shownRows, shownValue } from "../../src/engine/shown-value.js";

describe("shownValue: what previews, dry runs, profiles and DLQ payloads show of a value", () => {
  it("returns ordinary rows as they are (the same objects)", () => {
    const rows = [{ id: 1, name: "a", at: new Date(0), tags: ["x"], small: Buffer.from("hi"), nested: { k: null } }];
    expect(shownRows(rows)[0]).toBe(rows[0]);
  });

  it("cuts long text, large binaries, long lists and wide objects, saying how large they were", () => {
    const long = "y".repeat(SHOWN_TEXT_CHARS + 5);
    expect(shownValue(long)).toBe(`${"y".repeat(SHOWN_TEXT_CHARS)}… (4,005 characters)`);
    expect(shownValue(Buffer.alloc(5000))).toBe("<binary: 5,000 bytes>");
    const list = shownValue(Array.from({ length: SHOWN_ITEMS + 2 }, (_, i) => i)) as unknown[];
    expect(list).toHaveLength(SHOWN_ITEMS + 1);
    expect(list.at(-1)).toBe("… (1,002 items)");
    const wide = shownValue(Object.fromEntries(Array.from({ length: SHOWN_ITEMS + 1 }, (_, i) => [`k${i}`, i])));
    expect(Object.keys(wide as object)).toHaveLength(SHOWN_ITEMS + 1);
    expect((wide as Record<string, unknown>)["…"]).toBe("1,001 keys");
    const row = { id: 1, doc: { body: long } };
    const shown = shownValue(row) as typeof row;
    expect(shown).not.toBe(row);
    expect(shown.doc.body).toMatch(/… \(4,005 characters\)$/);
    expect(row.doc.body).toBe(long); // a copy: the node's output is untouched
  });

  it("keeps a __proto__ column as data", () => {
    const row = JSON.parse(`{"__proto__": "${"z".repeat(SHOWN_TEXT_CHARS + 1)}", "b": 1}`) as object;
    const shown = shownValue(row) as Record<string, unknown>;
    expect(Object.getPrototypeOf(shown)).toBe(Object.prototype);
    expect(Object.keys(shown)).toEqual(["__proto__", "b"]);
  });
});
