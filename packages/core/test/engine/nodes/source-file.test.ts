import { execFileSync } from "node:child_process";
import syncFs from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
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

  it("reads a CSV file whole up to 64 KiB and streamed beyond, with the same rows either side", async () => {
    // a quoted field with a newline across the 64 KiB mark of the larger file: streamed chunks must not split it
    const csv = (bytes: number) => {
      const lines = ["n,text"];
      let size = lines[0]!.length + 1;
      for (let i = 0; size < bytes; i++) {
        const line = `${i},"line ${i}\nsecond ""part"" ${"x".repeat(i % 50)}"`;
        lines.push(line);
        size += line.length + 1;
      }
      return lines.join("\n") + "\n";
    };
    for (const [name, bytes] of [
      ["small.csv", 64 * 1024 - 200],
      ["large.csv", 64 * 1024 + 5000],
    ] as const) {
      const text = csv(bytes);
      await fs.writeFile(path.join(root, name), text);
      const { output } = await read({ path: name });
      const rows = text.trimEnd().split("\n").length / 2 - 0.5;
      expect(output.rows, name).toHaveLength(rows);
      expect(output.rows[rows - 1], name).toEqual({
        n: String(rows - 1),
        text: `line ${rows - 1}\nsecond "part" ${"x".repeat((rows - 1) % 50)}`,
      });
    }
  });

  it("refuses a named pipe at once, with or without a writer (opening one held a thread of libuv's pool)", async () => {
    const fifo = path.join(root, "pipe.csv");
    execFileSync("mkfifo", [fifo]);
    await expect(read({ path: "pipe.csv" })).rejects.toThrow(/not a regular file/);
    // a writer waiting on the other end changes nothing; it is let go by the reader opened here
    const writing = fs.writeFile(fifo, "n\n1\n").catch(() => undefined);
    await expect(read({ path: "pipe.csv" })).rejects.toThrow(/not a regular file/);
    await fs.readFile(fifo).catch(() => undefined);
    await writing;
  });

  it("reads every row once of a CSV file that grew past 64 KiB after its size was taken", async () => {
    const lines = ["n,sq"];
    for (let i = 0; i < 10_000; i++) lines.push(`${i},${i * i}`);
    await fs.writeFile(path.join(root, "growing.csv"), lines.join("\n"));
    // the open handle reports the size the file had before a writer appended to it
    const open = syncFs.promises.open.bind(syncFs.promises);
    vi.spyOn(syncFs.promises, "open").mockImplementation((async (...args: Parameters<typeof open>) => {
      const handle = await open(...args);
      const stat = handle.stat.bind(handle);
      handle.stat = (async () => Object.assign(await stat(), { size: 100 })) as typeof handle.stat;
      return handle;
    }) as never);
    try {
      const { output } = await read({ path: "growing.csv" });
      expect(output.rows).toHaveLength(10_000);
      expect(output.rows[0]).toEqual({ n: "0", sq: "0" });
      expect(output.rows[9_999]).toEqual({ n: "9999", sq: String(9_999 * 9_999) });
    } finally {
      vi.restoreAllMocks();
    }
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

/**
 * A writer to the roots swaps things between the node's check of its path and its open (made deterministic by doing
 * it from inside the node's own `open` call, just before the real open): what is open is checked again.
 */
describe("source_file when its path changes between the check and the open", () => {
  afterEach(() => vi.restoreAllMocks());

  /** Runs `swap` once, just before the node's next `fs.promises.open`. */
  const beforeOpen = (swap: () => void) => {
    const real = syncFs.promises.open.bind(syncFs.promises);
    let done = false;
    vi.spyOn(syncFs.promises, "open").mockImplementation((async (...args: Parameters<typeof real>) => {
      if (!done) {
        done = true;
        swap();
      }
      return real(...args);
    }) as never);
  };

  it("refuses a file outside the roots reached through a directory swapped for a symlink, and reads none of it", async () => {
    syncFs.writeFileSync(path.join(outside, "private.csv"), "secret\nOUTSIDE-ROOT-CONTENT\n");
    syncFs.mkdirSync(path.join(root, "d"));
    syncFs.writeFileSync(path.join(root, "d", "private.csv"), "secret\ndecoy\n");
    beforeOpen(() => {
      syncFs.renameSync(path.join(root, "d"), path.join(root, "d-real"));
      syncFs.symlinkSync(outside, path.join(root, "d"));
    });
    const attempt = read({ path: "d/private.csv" });
    await expect(attempt).rejects.toThrow(/outside the allowed file roots/);
    await expect(attempt).rejects.not.toThrow(/OUTSIDE-ROOT-CONTENT/);
  });

  it("refuses a state file that appeared, hard-linked into the root, after the path was checked", async () => {
    const wal = path.join(outside, "sluice.db-wal");
    const stateFiles = [path.join(outside, "sluice.db"), wal, path.join(outside, ".svc-jwt-secret")];
    beforeOpen(() => {
      // SQLite creates its WAL file; the attacker hard-links it into the root under the name they asked to read
      syncFs.writeFileSync(wal, "WAL-CONTENT\n", { mode: 0o600 });
      syncFs.linkSync(wal, path.join(root, "innocent.csv"));
    });
    const { ctx } = nodeContext("source_file", { fileRoots: [root], stateFiles });
    const attempt = sourceFileNode.run(ctx, sourceFileConfig.parse({ path: "innocent.csv" }), []);
    await expect(attempt).rejects.toThrow(/server's own state files/);
  });
});
