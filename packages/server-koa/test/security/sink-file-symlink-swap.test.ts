/**
 * sink_file against a directory swapped for a symlink in a loop (security review: CRITICAL). An attacker who can
 * write to a file root makes `race/d` (a real directory) and `race/x` (a symlink to the server's data directory) and
 * swaps the two names over and over, while a pipeline of many parallel sink_file nodes writes
 * `race/d/.svc-jwt-secret`. A node that checks the path and then creates its temp file and renames it by name
 * sooner or later does so through the symlink and replaces the server's real JWT secret. The swap here runs in a
 * child process for a bounded time (Node has no RENAME_EXCHANGE: it rotates the names through a third one, and
 * removes a `d` the sink's mkdir recreated in between).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSluice, silentLogger, type Sluice } from "../../../core/src/index.js";
import { tempDir } from "../../../../test-support/databases.js";

const SWAP_MS = 9_000;
const NODES = 60;

let sluice: Sluice;
let dataDir: string;
let rootsDir: string;
let race: string;
let stateFiles: string[];

const snapshot = (file: string) => {
  const stat = fs.statSync(file);
  return { file, content: fs.readFileSync(file).toString("hex"), mode: stat.mode & 0o777, ino: stat.ino };
};
const dataDirState = () => ({ files: fs.readdirSync(dataDir).sort(), state: stateFiles.map(snapshot) });

/** The attacker's loop: swaps the names `d` and `x` in `dir` until killed or `ms` have passed; prints its count. */
const SWAPPER = `
const fs = require("node:fs"), path = require("node:path");
const [dir, ms] = [process.argv[1], Number(process.argv[2])];
const [d, x, t] = ["d", "x", "t"].map((n) => path.join(dir, n));
const into = (from, to) => {
  for (;;) {
    try { return fs.renameSync(from, to); }
    catch (e) {
      // the sink's mkdir -p recreated 'd' while it was away: remove it and try again
      if (to !== d || !["EISDIR", "ENOTDIR", "ENOTEMPTY", "EEXIST"].includes(e.code)) throw e;
      try { fs.rmSync(d, { recursive: true, force: true }); }
      catch (r) {
        // the sink wrote into 'd' while it was being removed: the next round removes that too
        if (!["ENOTEMPTY", "ENOENT"].includes(r.code)) throw r;
      }
    }
  }
};
let swaps = 0;
const end = Date.now() + ms;
while (Date.now() < end) {
  into(d, t); into(x, d); into(t, x);
  if (++swaps % 100 === 0) fs.writeSync(1, swaps + "\\n");
}
`;

function startSwapper(ms: number): { child: ChildProcess; swaps: Promise<number> } {
  const child = spawn(process.execPath, ["-e", SWAPPER, race, String(ms)], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  // killed (SIGTERM) once the test is done with it, or exits by itself after `ms`; resolves to the swaps made
  const swaps = new Promise<number>((resolve, reject) =>
    child.on("exit", (code, signal) =>
      code === 0 || signal === "SIGTERM"
        ? resolve(Number(out.trim().split("\n").at(-1) ?? 0))
        : reject(new Error(`swapper failed: ${err}`)),
    ),
  );
  return { child, swaps };
}

async function runPipeline(nodes: unknown[]) {
  const pipeline = await sluice.pipelines.create({ name: `swap-${Math.random()}`, nodes, edges: [] } as never);
  const { id } = await sluice.runs.trigger(pipeline.id);
  for (;;) {
    const run = await sluice.runs.get(id);
    if (run.status === "success" || run.status === "failed" || run.status === "cancelled") return run;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const sink = (id: string, file: string) => ({ id, type: "sink_file", config: { path: file } });

beforeAll(async () => {
  dataDir = tempDir("sluice-swap-data-");
  rootsDir = tempDir("sluice-swap-roots-");
  race = path.join(rootsDir, "race");
  // no jwtSecret, no secretKey: both live in files beside the database, as after a plain `npm start`
  sluice = await createSluice({
    database: path.join(dataDir, "sluice.db"),
    logger: silentLogger,
    fileRoots: [rootsDir],
    parallelism: NODES,
  });
  await sluice.start();
  stateFiles = [path.join(dataDir, ".svc-jwt-secret"), path.join(dataDir, "sluice.db.key")];
  fs.mkdirSync(path.join(race, "d"), { recursive: true });
  fs.symlinkSync(dataDir, path.join(race, "x"));
});

afterAll(async () => {
  await sluice?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(rootsDir, { recursive: true, force: true });
});

describe("sink_file while the attacker swaps a directory with a symlink to the data dir", () => {
  it("never replaces or changes a state file, however the swaps and the writes interleave", async () => {
    const before = dataDirState();
    const { child, swaps } = startSwapper(SWAP_MS);
    const outcomes = { success: 0, failed: 0 };
    let runs = 0;
    let swapped = 0;
    try {
      const end = Date.now() + SWAP_MS - 1_000;
      // stop at the first change so the failure shows the run that made it
      while (Date.now() < end) {
        const targets = [".svc-jwt-secret", "sluice.db.key"];
        const run = await runPipeline(
          Array.from({ length: NODES }, (_, i) => sink(`w${i}`, `race/d/${targets[i % targets.length]}`)),
        );
        runs++;
        for (const n of run.node_runs) outcomes[n.status === "success" ? "success" : "failed"]++;
        expect([runs, dataDirState()]).toEqual([runs, before]);
      }
    } finally {
      child.kill("SIGTERM");
      swapped = await swaps; // stopped before the directories are removed
    }
    // the race was really run: the names were swapped many times and writes both landed and were refused
    expect(swapped).toBeGreaterThan(100);
    expect(outcomes.success).toBeGreaterThan(0);
    expect(outcomes.failed).toBeGreaterThan(0);
    expect(dataDirState()).toEqual(before);
  }, 60_000);

  it("still writes normally: a new file 0640 or tighter, a replaced file keeps its mode", async () => {
    const file = path.join(rootsDir, "plain", "out.csv");
    expect((await runPipeline([sink("w", "plain/out.csv")])).status).toBe("success");
    expect(fs.statSync(file).mode & 0o777 & ~0o640).toBe(0);
    for (const mode of [0o600, 0o644]) {
      fs.writeFileSync(file, "old\n");
      fs.chmodSync(file, mode);
      const ino = fs.statSync(file).ino;
      expect((await runPipeline([sink("w", "plain/out.csv")])).status).toBe("success");
      expect(fs.statSync(file).mode & 0o777).toBe(mode);
      expect(fs.statSync(file).ino).not.toBe(ino); // atomically replaced, not rewritten in place
      expect(fs.readFileSync(file, "utf8")).not.toBe("old\n");
    }
    expect(fs.readdirSync(path.dirname(file))).toEqual(["out.csv"]);
  });
});
