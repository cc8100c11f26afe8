import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJsonInSlices } from "../../../src/engine/nodes/json-array-in-slices.js";
import { sourceFileConfig, sourceFileNode } from "../../../src/engine/nodes/source-file.js";
import { Slices } from "../../../src/engine/slices.js";
import { nodeContext } from "../peer-server.js";
import { expectSliced, holdOf } from "./event-loop-hold.js";

/**
 * A `json` source file is parsed in slices once it is large (json-array-in-slices.ts): 35 MB in one JSON.parse held
 * the server's thread for 0.2–0.4 s. What it gives must be what JSON.parse gives, errors included.
 */

/** What JSON.parse makes of `text` (a BOM before it allowed), or its error's message. */
function parsed(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text.replace(/^\uFEFF/, "")) as unknown };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

async function parsedInSlices(text: string): Promise<{ value: unknown } | { error: string }> {
  try {
    return { value: await parseJsonInSlices(text, new Slices()) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** Texts meant to trip a scanner: commas, brackets, quotes and backslashes in strings, at every offset. */
const TRICKY = [
  "[]",
  "  [ ]  ",
  "\uFEFF[1]",
  "[1]",
  '["abc\\"d",1]',
  '["\\\\",",","]","[","{","}"]',
  '[{"a":"x\\\\\\"y,]","b":[1,[2,{"c":"}"}]]},null,true,false,-0.5e3,"\\u005d"]',
  '[{"__proto__":{"polluted":1}},{"constructor":2}]',
  "[1,,2]",
  "[1,2,]",
  "[,1]",
  "[1]]",
  "[1] [2]",
  "[{]}",
  "[1 2]",
  "[",
  "[1,",
  '["unterminated]',
  "[\u00a01]",
  "[1]\u00a0",
  "[\u00a0]",
  '"text"',
  '{"a":1}',
  "42",
  "",
  "   ",
  "[1]\n\r\t ",
  '["\ud800", "😀", "\\ud83d\\ude00"]',
];

describe("parseJsonInSlices", () => {
  for (const text of TRICKY)
    it(`gives what JSON.parse gives for ${JSON.stringify(text)}`, async () => {
      expect(await parsedInSlices(text)).toEqual(parsed(text));
    });

  it("gives what JSON.parse gives for every prefix of a tricky array, and for it padded to put each character at a piece's edge", async () => {
    const text = TRICKY[6] as string;
    for (let n = 0; n <= text.length; n++)
      expect(await parsedInSlices(text.slice(0, n))).toEqual(parsed(text.slice(0, n)));
    for (let pad = 0; pad < 90; pad++) {
      const padded = `[${" ".repeat(pad)}${text.slice(1)}`;
      expect(await parsedInSlices(padded)).toEqual(parsed(padded));
    }
  });
});

describe("a large json source file", () => {
  let root: string;
  const ROWS = 150_000;
  const rows = Array.from({ length: ROWS }, (_, i) => ({
    id: i,
    // quotes, backslashes, commas and brackets inside the text, so that a scanner that lost its place would fall back
    // to one JSON.parse of the whole, and hold the loop
    note: `said "hi", then [left] {${i}} \\ back`,
    amount: i % 7 ? i / 3 : null,
    ...(i % 1000 === 999 ? { late: true } : {}),
  }));
  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), "sluice-json-src-"));
    await fs.writeFile(path.join(root, "big.json"), JSON.stringify(rows, null, 1));
    await fs.writeFile(path.join(root, "broken.json"), JSON.stringify(rows).slice(0, -2) + ",]");
  });
  afterAll(() => fs.rm(root, { recursive: true, force: true }));

  it("is read with the event loop turning, to the rows and columns JSON.parse gives", async () => {
    const { ctx } = nodeContext("source_file", { fileRoots: [root] });
    const hold = await holdOf(() => sourceFileNode.run(ctx, sourceFileConfig.parse({ path: "big.json" }), []));
    expect(hold.result.output.columns).toEqual(["id", "note", "amount", "late"]);
    expect(hold.result.output.rows).toEqual(rows);
    expectSliced(hold);
  });

  it("that is not valid JSON fails with JSON.parse's own error", async () => {
    const { ctx } = nodeContext("source_file", { fileRoots: [root] });
    const text = await fs.readFile(path.join(root, "broken.json"), "utf8");
    const expected = parsed(text) as { error: string };
    await expect(sourceFileNode.run(ctx, sourceFileConfig.parse({ path: "broken.json" }), [])).rejects.toThrow(
      `broken.json: file is not valid JSON: ${expected.error}`,
    );
  });

  it("stops at a cancel between two slices, with the cancel's reason", async () => {
    const text = JSON.stringify(rows);
    const controller = new AbortController();
    // aborted at the first turn of the event loop, which comes between two slices of about 10 ms
    setImmediate(() => controller.abort(new Error("cancelled by the test")));
    await expect(parseJsonInSlices(text, new Slices(controller.signal))).rejects.toThrow("cancelled by the test");
  });
});
