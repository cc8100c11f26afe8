import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
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

/**
 * A writer to the roots swaps a directory of the target for a symlink to the server's data dir between the node's
 * check and its writes (the race the security review won with renameat2 RENAME_EXCHANGE; here made deterministic by
 * doing the swap from inside the node's own mkdir or rename call).
 */
describe("sink_file when a directory is swapped for a symlink after the check", () => {
  let secret: string;
  const secretState = () => [fs.readFileSync(secret, "utf8"), mode(secret), fs.readdirSync(path.dirname(secret))];

  /** After the node's next `fs.promises[method]` call for a path under `race`, runs `swap` once. */
  const swapDuring = (method: "mkdir" | "rename", swap: () => void, when: "before" | "after") => {
    const real = fs.promises[method].bind(fs.promises) as (...a: unknown[]) => Promise<unknown>;
    let done = false;
    return vi.spyOn(fs.promises, method).mockImplementation((async (...args: unknown[]) => {
      if (done) return real(...args);
      done = true;
      if (when === "before") swap();
      const result = await real(...args);
      if (when === "after") swap();
      return result;
    }) as never);
  };
  afterEach(() => vi.restoreAllMocks());

  it("refuses when the target's own directory became a symlink to the state files' directory", async () => {
    // state files outside the roots; race/d is the attacker's dir, race/x their symlink to the data dir
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-sink-file-data-"));
    try {
      secret = path.join(dataDir, ".svc-jwt-secret");
      fs.writeFileSync(secret, "k\n", { mode: 0o600 });
      fs.mkdirSync(path.join(root, "race", "d"), { recursive: true });
      fs.symlinkSync(dataDir, path.join(root, "race", "x"));
      const before = secretState();
      swapDuring(
        "mkdir",
        () => {
          fs.renameSync(path.join(root, "race", "d"), path.join(root, "race", "d-real"));
          fs.renameSync(path.join(root, "race", "x"), path.join(root, "race", "d"));
        },
        "after",
      );
      await expect(write({ path: "race/d/.svc-jwt-secret" }, [secret])).rejects.toThrow(
        /outside the allowed file roots/,
      );
      expect(secretState()).toEqual(before);
      expect(fs.readdirSync(path.join(root, "race", "d-real"))).toEqual([]);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("refuses when a parent directory became a symlink leading to a state file inside the roots", async () => {
    // the data dir is root/state/d (inside the roots, as the OS temp dir is by default): only the state-file refusal
    // stands; root/race/d is the attacker's dir and root/race gets swapped for a symlink to root/state
    const dataDir = path.join(root, "state", "d");
    fs.mkdirSync(dataDir, { recursive: true });
    secret = path.join(dataDir, ".svc-jwt-secret");
    fs.writeFileSync(secret, "k\n", { mode: 0o600 });
    fs.mkdirSync(path.join(root, "race", "d"), { recursive: true });
    const before = secretState();
    swapDuring(
      "mkdir",
      () => {
        fs.renameSync(path.join(root, "race"), path.join(root, "race-real"));
        fs.symlinkSync(path.join(root, "state"), path.join(root, "race"));
      },
      "after",
    );
    await expect(write({ path: "race/d/.svc-jwt-secret" }, [secret])).rejects.toThrow(/server's own state files/);
    expect(secretState()).toEqual(before);
    expect(fs.readdirSync(path.join(root, "race-real", "d"))).toEqual([]);
  });

  it("renames within the directory it checked even if that directory is swapped just before the rename", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-sink-file-data-"));
    try {
      secret = path.join(dataDir, ".svc-jwt-secret");
      fs.writeFileSync(secret, "k\n", { mode: 0o600 });
      fs.mkdirSync(path.join(root, "race", "d"), { recursive: true });
      fs.symlinkSync(dataDir, path.join(root, "race", "x"));
      const before = secretState();
      swapDuring(
        "rename",
        () => {
          fs.renameSync(path.join(root, "race", "d"), path.join(root, "race", "d-real"));
          fs.renameSync(path.join(root, "race", "x"), path.join(root, "race", "d"));
        },
        "before",
      );
      // either written into the directory that was checked (now race/d-real), or failed: never into the data dir
      const outcome = await write({ path: "race/d/.svc-jwt-secret" }, [secret]).then(
        () => "written",
        (e: Error) => e.message,
      );
      expect(secretState()).toEqual(before);
      expect([outcome, fs.readdirSync(path.join(root, "race", "d-real"))]).toEqual(["written", [".svc-jwt-secret"]]);
      expect(fs.readFileSync(path.join(root, "race", "d-real", ".svc-jwt-secret"), "utf8")).toBe("a\n1\n");
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
