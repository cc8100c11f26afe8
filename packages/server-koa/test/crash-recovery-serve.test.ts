import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createKnexStore } from "../../core/src/store/knex/create-knex-store.js";
import { tempDir } from "../../../test-support/databases.js";
import { pollUntil } from "../../../test-support/poll.js";

const BIN = fileURLToPath(new URL("../bin/sluice.js", import.meta.url));
const children: ChildProcess[] = [];

async function serve(db: string, cwd: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, "serve", "--host", "127.0.0.1", "--port", "0", "--db", db], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 15_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+?)\/api/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once("exit", (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
  return { child, url };
}

const kill = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.removeAllListeners("exit");
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

/*
 * A real `sluice serve` is SIGKILLed; the run it owned is then `running` in the database under the dead process.
 * The first test places the orphaned run directly (ownership by a dead pid); the second kills a server in the middle of
 * a real run of `code` nodes.
 * The next `sluice serve` marks it failed/interrupted at start, and it can be resumed over HTTP.
 */
describe("crash recovery with a real server process", () => {
  it("a run left running by a SIGKILLed server is failed with `interrupted` on restart and can be resumed", async () => {
    const cwd = tempDir();
    const db = path.join(cwd, "crash.db");
    const first = await serve(db, cwd);
    const created = await fetch(`${first.url}/api/pipelines`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "recover-me", nodes: [], edges: [] }),
    });
    expect(created.status).toBe(201);
    const pipelineId = ((await created.json()) as { id: string }).id;
    const pid = first.child.pid as number;
    await kill(first.child);

    const store = await createKnexStore(db);
    const at = new Date().toISOString();
    await store.runs.insert([
      {
        id: "crashed-run",
        pipeline_id: pipelineId,
        status: "pending",
        trigger: "manual",
        params: {},
        error: null,
        created_at: at,
        started_at: null,
        finished_at: null,
      },
    ]);
    expect(await store.runs.claimPending(`${os.hostname()}:${pid}:a1b2c3d4`, 1, at)).toHaveLength(1);
    await store.close();

    const second = await serve(db, cwd);
    try {
      const run = (await (await fetch(`${second.url}/api/runs/crashed-run`)).json()) as {
        status: string;
        error: string;
      };
      expect(run).toMatchObject({ status: "failed", error: "interrupted" });
      const resumed = await fetch(`${second.url}/api/runs/crashed-run/resume`, { method: "POST" });
      expect(resumed.status).toBe(202);
      let status = "pending";
      for (let i = 0; i < 500 && (status === "pending" || status === "running"); i++) {
        await new Promise((r) => setTimeout(r, 10));
        status = ((await (await fetch(`${second.url}/api/runs/crashed-run`)).json()) as { status: string }).status;
      }
      expect(status).toBe("success");
    } finally {
      await kill(second.child);
    }
  });

  it("SIGKILL in the middle of a real run: restart marks it interrupted, resume finishes it with the earlier node's rows", async () => {
    const cwd = tempDir();
    const db = path.join(cwd, "midrun.db");
    const first = await serve(db, cwd);
    const api = (url: string, p: string, init: { method?: string; json?: unknown } = {}) =>
      fetch(`${url}/api${p}`, {
        method: init.method ?? "GET",
        headers: { "content-type": "application/json" },
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
      });
    const created = await api(first.url, "/pipelines", {
      method: "POST",
      json: {
        name: "killed mid-run",
        nodes: [
          { id: "fast", type: "code", config: { code: "return [{ n: 1 }, { n: 2 }, { n: 3 }];" } },
          // sleeps until the time given in the `until` param, so the run is still going when the process dies
          {
            id: "slow",
            type: "code",
            config: {
              code: "const wait = Number(params.until) - Date.now(); if (wait > 0) await new Promise(r => setTimeout(r, wait)); return rows;",
            },
          },
        ],
        edges: [{ from: "fast", to: "slow" }],
      },
    });
    const pipelineId = ((await created.json()) as { id: string }).id;
    // long enough for `fast` and `slow` to start on a busy machine (the sandbox's first worker, the polling below)
    const until = String(Date.now() + 8000);
    const run = (await (
      await api(first.url, `/pipelines/${pipelineId}/run`, { method: "POST", json: { params: { until } } })
    ).json()) as { id: string };
    // seen running before `until`, when it would return
    const slowRunning = await pollUntil(
      async () => {
        const state = (await (await api(first.url, `/runs/${run.id}`)).json()) as {
          node_runs: { node_id: string; status: string }[];
        };
        return state.node_runs.some((n) => n.node_id === "slow" && n.status === "running") || undefined;
      },
      { timeoutMs: Number(until) - Date.now(), everyMs: 10 },
    );
    expect(slowRunning).toBe(true);
    await kill(first.child);

    const second = await serve(db, cwd);
    try {
      const after = (await (await api(second.url, `/runs/${run.id}`)).json()) as { status: string; error: string };
      expect(after).toMatchObject({ status: "failed", error: "interrupted" });
      while (Date.now() < Number(until)) await new Promise((r) => setTimeout(r, 100));
      expect((await api(second.url, `/runs/${run.id}/resume`, { method: "POST" })).status).toBe(202);
      let final = { status: "pending", node_runs: [] as { node_id: string; status: string; row_count: number }[] };
      for (let i = 0; i < 500 && (final.status === "pending" || final.status === "running"); i++) {
        await new Promise((r) => setTimeout(r, 20));
        final = (await (await api(second.url, `/runs/${run.id}`)).json()) as typeof final;
      }
      expect(final.status).toBe("success");
      expect(final.node_runs.find((n) => n.node_id === "slow")).toMatchObject({ status: "success", row_count: 3 });
    } finally {
      await kill(second.child);
    }
  });
});
