import { spawn, type ChildProcessByStdio } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../test-support/databases.js";

const BIN = fileURLToPath(new URL("../bin/sluice.js", import.meta.url));
const ENDLESS = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) AS n FROM r";

/** The SQLite worker processes (`sqlite-worker-process`) whose parent is `pid`, read from /proc. */
function sqliteWorkersOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== pid) continue;
      if (fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("sqlite-worker-process"))
        found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** CPU seconds `pid` has used (user + system, from /proc; 0 once it is gone). */
function cpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return 0;
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !fs.readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z "); // a zombie has ended
  } catch {
    return false;
  }
};

async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A `sluice serve` of its own, with a run whose `sql` node is inside an endless SQLite statement. */
async function serverWithEndlessQuery(timeout?: number) {
  const dir = tempDir();
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(
    process.execPath,
    [BIN, "serve", "--host", "127.0.0.1", "--port", "0", "--db", path.join(dir, "s.db")],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stderr.resume();
  const base = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 30_000);
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+?)\/api/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  const post = (p: string, body: unknown) =>
    fetch(`${base}/api${p}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const pipeline = (await (
    await post("/pipelines", {
      name: "endless sql",
      nodes: [
        { id: "src", type: "code", config: { code: "return [{ a: 1 }];" } },
        { id: "forever", type: "sql", config: { ...(timeout ? { timeout } : {}), sql: ENDLESS } },
      ],
      edges: [{ from: "src", to: "forever" }],
    })
  ).json()) as { id: string };
  const { id } = (await (await post(`/pipelines/${pipeline.id}/run`, {})).json()) as { id: string };
  const status = async () => ((await (await fetch(`${base}/api/runs/${id}`)).json()) as { status: string }).status;
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code, signal) => resolve(signal ? -1 : code)),
  );
  return { child, status, exited };
}

/*
 * A statement that never ends inside one SQLite step cannot be interrupted: it runs in a worker process, which the
 * server kills on a timeout and takes along when it ends, however it ends.
 */
describe("an endless SQLite statement and the server's end", () => {
  it("a timed-out statement's process is gone, and sluice serve exits on SIGTERM within the shutdown limit", async () => {
    const { child, status, exited } = await serverWithEndlessQuery(1);
    let s = "";
    for (let i = 0; i < 200 && !["failed", "success", "cancelled"].includes(s); i++) {
      await new Promise((r) => setTimeout(r, 100));
      s = await status();
    }
    expect(s).toBe("failed");
    await until("the timed-out statement's worker process is gone", () => sqliteWorkersOf(child.pid!).length === 0);
    child.kill("SIGTERM");
    const outcome = await Promise.race([exited, new Promise<"hung">((r) => setTimeout(() => r("hung"), 25_000))]);
    if (outcome === "hung") child.kill("SIGKILL");
    expect(outcome).not.toBe("hung");
  }, 90_000);

  it("a server stopped by SIGTERM, or killed outright, leaves no worker process running the statement", async () => {
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      const { child, exited } = await serverWithEndlessQuery();
      let workers: number[] = [];
      await until("the statement runs in a worker process", () => (workers = sqliteWorkersOf(child.pid!)).length > 0);
      // inside the endless step by now: half a second of CPU spent on it
      await until("the worker computes", () => workers.some((pid) => cpuSeconds(pid) >= 0.5));
      child.kill(signal);
      await exited;
      await until(`the worker process is gone after ${signal}`, () => workers.every((pid) => !alive(pid)), 10_000);
    }
  }, 90_000);
});
