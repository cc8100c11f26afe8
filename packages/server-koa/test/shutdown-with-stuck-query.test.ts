import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../test-support/databases.js";

const BIN = fileURLToPath(new URL("../bin/sluice.js", import.meta.url));

/*
 * A `sql` node whose statement never ends inside one SQLite step is timed out, but its worker thread cannot be
 * interrupted and would block a normal exit: `sluice serve` must still end on SIGTERM.
 */
describe("shutdown while a timed-out SQLite statement still runs", () => {
  it("sluice serve exits on SIGTERM within the shutdown limit", async () => {
    const dir = tempDir();
    const child = spawn(
      process.execPath,
      [BIN, "serve", "--host", "127.0.0.1", "--port", "0", "--db", path.join(dir, "s.db")],
      {
        cwd: dir,
        stdio: ["ignore", "pipe", "pipe"],
      },
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
          {
            id: "forever",
            type: "sql",
            config: {
              timeout: 1,
              sql: "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) AS n FROM r",
            },
          },
        ],
        edges: [{ from: "src", to: "forever" }],
      })
    ).json()) as { id: string };
    const { id } = (await (await post(`/pipelines/${pipeline.id}/run`, {})).json()) as { id: string };
    let status = "";
    for (let i = 0; i < 200 && !["failed", "success", "cancelled"].includes(status); i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = ((await (await fetch(`${base}/api/runs/${id}`)).json()) as { status: string }).status;
    }
    expect(status).toBe("failed");
    const exited = new Promise<number | null>((resolve) =>
      child.once("exit", (code, signal) => resolve(signal ? -1 : code)),
    );
    child.kill("SIGTERM");
    const outcome = await Promise.race([exited, new Promise<"hung">((r) => setTimeout(() => r("hung"), 25_000))]);
    if (outcome === "hung") child.kill("SIGKILL");
    expect(outcome).not.toBe("hung");
  }, 90_000);
});
