/**
 * The attack (found by a helper on 2026-11-27): a named pipe in a file root (the OS temp dir is one by default, where
 * any local account can make one) read by `source_file`. Opening it blocked one of libuv's four threads until someone
 * wrote to it, for good; four such nodes took them all, and with them every file read, DNS lookup and password hash
 * of the server: logins hung. Now only regular files (and directories) are opened; the pipe is refused at once.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { runPipeline } from "./attack-support.js";

let t: TestServer;
let root: string;
let fifo: string;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-fifo-"));
  fifo = path.join(root, "orders.csv");
  execFileSync("mkfifo", [fifo]);
  t = await startTestServer("sqlite", { fileRoots: [root] });
});
afterAll(async () => {
  // should the pipe have been opened, a writer opening and closing it ends every blocked reader (EOF)
  try {
    fs.closeSync(fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
  } catch {
    // no reader: nothing is blocked
  }
  await t?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe("attack: a named pipe in a file root", () => {
  it("is refused by source_file at once, and the server's thread pool stays free", async () => {
    const node = (id: string) => ({ id, type: "source_file", config: { path: "orders.csv" } });
    const { run } = await runPipeline(t, {
      name: "read a pipe",
      parallelism: 6,
      nodes: ["a", "b", "c", "d", "e", "f"].map(node),
      edges: [],
    });
    expect(run.status).toBe("failed");
    for (const nr of run.node_runs) expect(nr.error ?? "").toMatch(/not a regular file/);
    // the thread pool answers: a file read of the server's own
    const started = performance.now();
    await fs.promises.readFile(__filename);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
