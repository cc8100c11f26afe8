import { describe, expect, it } from "vitest";
import { SecretScrubber } from "../../src/engine/secret-scrubber.js";
import {
  SHOWN_BUDGET,
  SHOWN_ITEMS,
  SHOWN_KEY_CHARS,
  SHOWN_TEXT_CHARS,
  shownValue,
} from "../../src/engine/shown-value.js";

describe("shownValue: what previews, dry runs, profiles and DLQ payloads show of a value", () => {
  it("shows ordinary rows as they are", () => {
    const row = { id: 1, name: "a", at: new Date(0), tags: ["x"], small: Buffer.from("hi"), nested: { k: null } };
    expect(shownValue(row)).toEqual(row);
  });

  it("cuts long text, long keys, large binaries, long lists and wide objects, saying how large they were", () => {
    const long = "y".repeat(SHOWN_TEXT_CHARS + 5);
    expect(shownValue(long)).toBe(`${"y".repeat(SHOWN_TEXT_CHARS)}… (4,005 characters)`);
    expect(Object.keys(shownValue({ ["k".repeat(50_000)]: 1 }) as object)).toEqual([
      `${"k".repeat(SHOWN_KEY_CHARS)}… (50,000 characters)`,
    ]);
    expect(shownValue(Buffer.alloc(5000))).toBe("<binary: 5,000 bytes>");
    const list = shownValue(Array.from({ length: SHOWN_ITEMS + 2 }, (_, i) => i)) as unknown[];
    expect(list).toHaveLength(SHOWN_ITEMS + 1);
    expect(list.at(-1)).toBe("… (1,002 items)");
    const wide = shownValue(Object.fromEntries(Array.from({ length: SHOWN_ITEMS + 1 }, (_, i) => [`k${i}`, i])));
    expect(Object.keys(wide as object)).toHaveLength(SHOWN_ITEMS + 1);
    expect((wide as Record<string, unknown>)["…"]).toBe("1,001 keys");
    const row = { id: 1, doc: { body: long } };
    expect((shownValue(row) as typeof row).doc.body).toMatch(/… \(4,005 characters\)$/);
    expect(row.doc.body).toBe(long); // the node's output is untouched
  });

  it("bounds a whole value, so nesting cannot multiply what is shown", () => {
    const square = Array.from({ length: 1000 }, () => Array.from({ length: 1000 }, (_, i) => i));
    const cube = [square, square, square];
    for (const value of [square, cube, { a: square, b: { c: square } }]) {
      const json = JSON.stringify(shownValue(value));
      expect(json.length).toBeLessThan(SHOWN_BUDGET * 8);
    }
    let deep: unknown = "bottom";
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(JSON.stringify(shownValue(deep))).toContain("…");
  });

  it("masks before it cuts: a secret across the cut leaves no piece of itself", () => {
    const scrubber = new SecretScrubber();
    const token = "tok-0123456789abcdef";
    scrubber.add(token);
    for (let before = SHOWN_TEXT_CHARS - token.length; before <= SHOWN_TEXT_CHARS; before++) {
      const shown = scrubber.shown({ echoed: "x".repeat(before) + token + "y".repeat(100) }).echoed;
      for (let n = 4; n <= token.length; n++) expect(shown, `${before}`).not.toContain(token.slice(0, n));
    }
  });

  it("a secret starting past the cut shows no piece either, however much masking before it shortened the text", () => {
    const scrubber = new SecretScrubber();
    const token = "tok-0123456789abcdef-0123456789";
    scrubber.add(token);
    // 100 copies before the cut are masked to 8 characters each: text from past the cut moves before it
    const copies = token.repeat(100);
    for (let gap = 0; gap < 120; gap += 7) {
      const text = copies + "x".repeat(SHOWN_TEXT_CHARS - copies.length + gap) + token;
      const shown = scrubber.shown({ echoed: text }).echoed;
      for (let n = 4; n <= token.length; n++) expect(shown, `${gap}`).not.toContain(token.slice(0, n));
    }
  });

  it("masks a secret that arrives as a number or as bytes (a PIN in a JSON body, a CAST AS BLOB)", () => {
    const scrubber = new SecretScrubber();
    scrubber.add("90817263");
    scrubber.add("Zq7SecretVal99");
    const row = {
      pin: 90817263,
      big: 90817263n,
      other: 42,
      blob: Buffer.from("Zq7SecretVal99"),
      bytes: Buffer.from("ok"),
    };
    expect(scrubber.shown(row)).toEqual({
      pin: "********",
      big: "********",
      other: 42,
      blob: "<binary: 14 bytes>",
      bytes: Buffer.from("ok"),
    });
    // without a secret recorded, numbers and bytes are shown as they are
    expect(new SecretScrubber().shown(row)).toEqual(row);
  });

  it("shows a row's own keys only, in their order, not those its prototype lends it (a polluted prototype)", () => {
    const row = Object.assign(Object.create({ lent: "by the prototype" }) as object, { b: 1, a: "x", 2: "two" });
    expect(Object.keys(shownValue(row) as object)).toEqual(["2", "b", "a"]);
    expect(shownValue(row)).toEqual({ 2: "two", b: 1, a: "x" });
    // a wide row is cut after SHOWN_ITEMS of its own keys, and says how many it had
    const wide = Object.create({ lent: 1 }) as Record<string, number>;
    for (let i = 0; i < SHOWN_ITEMS + 5; i++) wide[`k${i}`] = i;
    const shown = shownValue(wide) as Record<string, unknown>;
    expect(Object.keys(shown)).toHaveLength(SHOWN_ITEMS + 1);
    expect(shown["…"]).toBe(`${(SHOWN_ITEMS + 5).toLocaleString("en-US")} keys`);
  });

  it("keeps a __proto__ column as data", () => {
    const row = JSON.parse(`{"__proto__": "${"z".repeat(SHOWN_TEXT_CHARS + 1)}", "b": 1}`) as object;
    const shown = shownValue(row) as Record<string, unknown>;
    expect(Object.getPrototypeOf(shown)).toBe(Object.prototype);
    expect(Object.keys(shown)).toEqual(["__proto__", "b"]);
  });
});

describe("a profile of data with a column per row (a helper's attack: 60,000 columns took 51 s)", () => {
  it("profiles the first 1,000 columns", async () => {
    const { profileDataSet, MAX_PROFILED_COLUMNS } = await import("../../src/engine/profile.js");
    const rows = Array.from({ length: 5000 }, (_, i) => ({ [`k${i}`]: i }));
    const profile = profileDataSet("n", { columns: rows.map((r) => Object.keys(r)[0]!), rows });
    expect(profile.columns).toHaveLength(MAX_PROFILED_COLUMNS);
    expect(profile.row_count).toBe(5000);
    expect(profile.columns[0]).toMatchObject({ name: "k0", null_count: 4999 });
  });
});
