/**
 * Found by a helper's attack (2026-11-27) on the run's log budget:
 * - a `node.retrying` event carried the whole node error (up to 4,000 characters), one per retry of every node,
 *   outside the budget: 64 nodes × 100 retries made 6,400 of them;
 * - a `since` replay read the run's whole event log at once (30 sockets replaying one such run took 3.5 GB);
 * - the budget counted characters, and a line of control characters is six times longer as JSON (`\u0001`): the logs
 *   of a run answered 49.5 MB where 8 MiB was meant.
 */
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RETRY_EVENT_ERROR_CHARS, RUN_LOG_CHARS } from "../../../core/src/engine/run-log-budget.js";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { runPipeline, subscribe, waitForRun } from "./attack-support.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer("sqlite");
});
afterAll(async () => t?.close());

interface Frame {
  type: string;
  run_id?: string;
  seq?: number;
  error?: string;
}

describe("attack: a run's events and its log as JSON are bounded", () => {
  it("a node.retrying event carries the start of a long error only", async () => {
    const created = await t.fetch("/pipelines", {
      method: "POST",
      json: {
        name: "retries",
        nodes: [
          {
            id: "r",
            type: "code",
            config: { code: "throw new Error('E'.repeat(3900));", max_retries: 2, retry_delay: 0 },
          },
        ],
        edges: [],
      },
    });
    const { id } = (await created.json()) as { id: string };
    const socket = await subscribe(t, id);
    const { id: runId } = (await (await t.fetch(`/pipelines/${id}/run`, { method: "POST", json: {} })).json()) as {
      id: string;
    };
    await waitForRun(t, runId);
    await new Promise((r) => setTimeout(r, 200));
    socket.close();
    const retrying = socket.raw.map((m) => JSON.parse(m) as Frame).filter((m) => m.type === "node.retrying");
    expect(retrying).toHaveLength(2);
    for (const m of retrying) expect(m.error!.length).toBeLessThanOrEqual(RETRY_EVENT_ERROR_CHARS);
  });

  it("a line of control characters counts as long as JSON writes it", async () => {
    const noisy = (id: string) => ({
      id,
      type: "code",
      config: { code: "const l = '\\u0001'.repeat(4990); for (let i = 0; i < 1000; i++) console.log(l); return [];" },
    });
    const { run } = await runPipeline(t, { name: "control characters", nodes: [noisy("a"), noisy("b")], edges: [] });
    expect(run.status).toBe("success");
    const body = await (await t.fetch(`/runs/${run.id}/logs`)).text();
    expect(body.length).toBeLessThan(RUN_LOG_CHARS + 500_000);
  });

  it("a since replay of a run with thousands of events sends every one, in order, a page at a time", async () => {
    const chatty = (id: string) => ({
      id,
      type: "code",
      config: { code: "for (let i = 0; i < 1000; i++) console.log('line ' + i); return [];" },
    });
    const { run } = await runPipeline(t, { name: "chatty", nodes: [chatty("a"), chatty("b")], edges: [] });
    const ws = new WebSocket(`${t.baseUrl.replace("http", "ws")}/ws`);
    const frames: Frame[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.once("error", reject);
      ws.on("message", (data) => {
        const m = JSON.parse(data.toString()) as Frame;
        frames.push(m);
        if (m.type === "run.completed") resolve();
      });
      ws.once("open", () => ws.send(JSON.stringify({ type: "subscribe", run_id: run.id, since: 0 })));
    });
    ws.close();
    const replayed = frames.filter((m) => m.run_id === run.id && m.type !== "subscribed");
    const lines = replayed.filter((m) => m.type === "log");
    expect(lines.length).toBeGreaterThanOrEqual(2000);
    const seqs = replayed.map((m) => m.seq!);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);
  });
});
