import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sourceFileNode } from "../../../src/engine/nodes/source-file.js";
import { sourceFileConfig } from "../../../src/engine/nodes/source-file.js";
import { nodeContext } from "../peer-server.js";

let root: string;
let outside: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "sluice-src-file-"));
  outside = await fs.mkdtemp(path.join(os.tmpdir(), "sluice-outside-"));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
  await fs.rm(outside, { recursive: true, force: true });
});

const read = (config: Record<string, unknown>, params: Record<string, string> = {}) => {
  const { ctx } = nodeContext("source_file", { fileRoots: [root], params });
  return sourceFileNode.run(ctx, sourceFileConfig.parse(config), []);
};

describe("source_file", () => {
  it("reads CSV with a header, quoted fields, embedded delimiters, quotes and newlines", async () => {
    await fs.writeFile(path.join(root, "in.csv"), 'id,name,note\n1,"Smith, Ann","said ""hi""\nthen left"\n2,Bob,\n');
    const { output } = await read({ path: "in.csv" });
    expect(output.columns).toEqual(["id", "name", "note"]);
    expect(output.rows).toEqual([
      { id: "1", name: "Smith, Ann", note: 'said "hi"\nthen left' },
      { id: "2", name: "Bob", note: "" },
    ]);
  });

  it("reads CSV with another delimiter, without a header, and casts when asked", async () => {
    await fs.writeFile(path.join(root, "semi.txt"), "1;x\n2;y\n");
    const { output } = await read({ path: "semi.txt", format: "csv", delimiter: ";", header: false, cast: true });
    expect(output).toEqual({
      columns: ["column_1", "column_2"],
      rows: [
        { column_1: 1, column_2: "x" },
        { column_1: 2, column_2: "y" },
      ],
    });
  });

  it("reads a JSON array and JSON Lines, with a rendered path", async () => {
    await fs.writeFile(path.join(root, "2026-01-02.json"), JSON.stringify([{ a: 1, b: { c: true } }, { a: 2 }]));
    await fs.writeFile(path.join(root, "rows.jsonl"), '{"a":1}\n\n{"a":2,"z":null}\n');
    const json = await read({ path: "${param.date}.json" }, { date: "2026-01-02" });
    expect(json.output).toEqual({ columns: ["a", "b"], rows: [{ a: 1, b: { c: true } }, { a: 2 }] });
    const jsonl = await read({ path: "rows.jsonl" });
    expect(jsonl.output).toEqual({ columns: ["a", "z"], rows: [{ a: 1 }, { a: 2, z: null }] });
  });

  it("streams a large CSV file", async () => {
    const lines = ["n,sq"];
    for (let i = 0; i < 200_000; i++) lines.push(`${i},${i * i}`);
    await fs.writeFile(path.join(root, "big.csv"), lines.join("\n"));
    const { output } = await read({ path: "big.csv" });
    expect(output.rows).toHaveLength(200_000);
    expect(output.rows[199_999]).toEqual({ n: "199999", sq: String(199_999 * 199_999) });
  });

  it("fails clearly on a bad JSON line, a non-array JSON file and a missing file", async () => {
    await fs.writeFile(path.join(root, "bad.jsonl"), '{"a":1}\nnot json\n');
    await fs.writeFile(path.join(root, "obj.json"), '{"a":1}');
    await expect(read({ path: "bad.jsonl" })).rejects.toThrow(/line 2 is not valid JSON/);
    await expect(read({ path: "obj.json" })).rejects.toThrow(/array of rows/);
    await expect(read({ path: "missing.csv" })).rejects.toThrow(/does not exist/);
  });

  it.each(["../outside.csv", "/etc/passwd", "a/../../x.csv", "..%2f..", "${param.p}"])(
    "refuses the hostile path %s",
    async (hostile) => {
      await expect(read({ path: hostile }, { p: "../../../etc/passwd" })).rejects.toThrow(
        /outside the allowed file roots|does not exist/,
      );
    },
  );

  it("refuses .. escapes and symlinks leading outside the roots", async () => {
    await fs.writeFile(path.join(outside, "secret.csv"), "s\n1\n");
    await fs.symlink(path.join(outside, "secret.csv"), path.join(root, "link.csv"));
    await fs.symlink(outside, path.join(root, "dir"));
    await expect(read({ path: path.relative(root, path.join(outside, "secret.csv")) })).rejects.toThrow(
      /outside the allowed file roots/,
    );
    await expect(read({ path: path.join(outside, "secret.csv") })).rejects.toThrow(/outside the allowed file roots/);
    await expect(read({ path: "link.csv" })).rejects.toThrow(/symbolic link/);
    await expect(read({ path: "dir/secret.csv" })).rejects.toThrow(/symbolic link/);
  });

  it("validation reports a missing path and an unknown format", () => {
    expect(JSON.stringify(sourceFileConfig.safeParse({}).error?.issues)).toMatch(/path is required/);
    expect(sourceFileConfig.safeParse({ path: "x", format: "xml" }).success).toBe(false);
  });
});
