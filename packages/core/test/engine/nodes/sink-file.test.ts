import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sinkFileNode } from "../../../src/engine/nodes/sink-file.js";
import { sinkFileConfig } from "../../../src/engine/nodes/sink-file.js";
import { nodeContext } from "../peer-server.js";

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-sink-file-"));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const data = { columns: ["a"], rows: [{ a: 1 }] };
const write = (config: Record<string, unknown>, stateFiles: string[] = []) => {
  const { ctx } = nodeContext("sink_file", { fileRoots: [root], stateFiles });
  return sinkFileNode.run(ctx, sinkFileConfig.parse(config), [data]);
};
const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe("sink_file file modes", () => {
  it("creates new files 0640 or tighter, even under a permissive umask", async () => {
    const previous = process.umask(0o000);
    try {
      await write({ path: "new.csv" });
    } finally {
      process.umask(previous);
    }
    expect(mode(path.join(root, "new.csv")) & ~0o640).toBe(0);
    expect(fs.readFileSync(path.join(root, "new.csv"), "utf8")).toBe("a\n1\n");
  });

  it("never changes the mode of a file it replaces", async () => {
    for (const m of [0o600, 0o644, 0o660]) {
      const file = path.join(root, `existing-${m.toString(8)}.csv`);
      fs.writeFileSync(file, "old\n");
      fs.chmodSync(file, m);
      await write({ path: path.basename(file) });
      expect([file, mode(file)]).toEqual([file, m]);
      expect(fs.readFileSync(file, "utf8")).toBe("a\n1\n");
    }
  });

  it("refuses a state file in its root and leaves it as it was", async () => {
    const secret = path.join(root, ".svc-jwt-secret");
    fs.writeFileSync(secret, "k\n", { mode: 0o600 });
    await expect(write({ path: ".svc-jwt-secret" }, [secret])).rejects.toThrow(/server's own state files/);
    expect([fs.readFileSync(secret, "utf8"), mode(secret)]).toEqual(["k\n", 0o600]);
    expect(fs.readdirSync(root)).toEqual([".svc-jwt-secret"]);
  });
});
