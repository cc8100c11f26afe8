import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test-support/http.js";
import { follow } from "../../../test-support/ws-follower.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer("sqlite");
});
afterAll(async () => t?.close());

const open = () => follow(t.baseUrl);

/** Two code nodes that each wait a little, so a client can drop and reconnect mid-run. */
const slowPipeline = {
  name: "ws-followed",
  nodes: [
    {
      id: "first",
      type: "code",
      config: {
        code: "await new Promise(r => setTimeout(r, 400)); console.log('first done'); return [{ n: 1 }, { n: 2 }];",
      },
    },
    {
      id: "second",
      type: "code",
      config: { code: "await new Promise(r => setTimeout(r, 400)); return rows.map(r => ({ n: r.n * 10 }));" },
    },
  ],
  edges: [{ from: "first", to: "second" }],
};

describe("WebSocket follows real runs", () => {
  it("streams a real run's events to its terminal status, and a client reconnecting mid-run catches up with `since`", async () => {
    const pipeline = (await (await t.fetch("/pipelines", { method: "POST", json: slowPipeline })).json()) as {
      id: string;
    };
    const watcher = await open();
    watcher.ws.send(JSON.stringify({ type: "subscribe", pipeline_id: pipeline.id }));
    await watcher.until((m) => m.type === "subscribed");

    // a second client sees the first node start, then drops
    const flaky = await open();
    flaky.ws.send(JSON.stringify({ type: "subscribe", pipeline_id: pipeline.id }));
    await flaky.until((m) => m.type === "subscribed");
    const run = (await (await t.fetch(`/pipelines/${pipeline.id}/run`, { method: "POST", json: {} })).json()) as {
      id: string;
    };
    const started = await flaky.until((m) => m.type === "node.started" && m.node_id === "first");
    const lastSeen = started.seq!;
    flaky.ws.close();

    const done = await watcher.until((m) => m.type === "run.completed" && m.run_id === run.id);
    expect(done).toMatchObject({ run_id: run.id, pipeline_id: pipeline.id, status: "success" });
    const types = watcher.messages.filter((m) => m.run_id === run.id).map((m) => m.type);
    expect(types).toEqual(
      expect.arrayContaining(["run.created", "run.started", "node.started", "node.completed", "log", "run.completed"]),
    );
    const completedSecond = watcher.messages.find((m) => m.type === "node.completed" && m.node_id === "second");
    expect(completedSecond).toMatchObject({ row_count: 2, status: "success" });

    // reconnect and ask for everything after the last sequence number seen: the rest of the run, terminal included
    const back = await open();
    back.ws.send(JSON.stringify({ type: "subscribe", run_id: run.id, since: lastSeen }));
    const terminal = await back.until((m) => m.type === "run.completed" && m.run_id === run.id);
    expect(terminal.seq).toBe(done.seq);
    const replayed = back.messages.filter((m) => m.run_id === run.id);
    expect(replayed.every((m) => (m.seq ?? 0) > lastSeen)).toBe(true);
    expect(replayed.some((m) => m.type === "node.completed" && m.node_id === "second")).toBe(true);
    watcher.ws.close();
    back.ws.close();
  });

  it("a client that subscribes after the run finished still gets its terminal status", async () => {
    const pipeline = (await (
      await t.fetch("/pipelines", { method: "POST", json: { ...slowPipeline, name: "ws-late" } })
    ).json()) as { id: string };
    const run = (await (await t.fetch(`/pipelines/${pipeline.id}/run`, { method: "POST", json: {} })).json()) as {
      id: string;
    };
    await t.client.runs.waitUntilTerminal(run.id, { timeoutMs: 15_000 });
    const late = await open();
    late.ws.send(JSON.stringify({ type: "subscribe", run_id: run.id, since: 0 }));
    const terminal = await late.until((m) => m.type === "run.completed" && m.run_id === run.id);
    expect(terminal.status).toBe("success");
    late.ws.close();
  });

  it("one socket gets the stored terminal status of each run whose events the log has forgotten", async () => {
    const quick = { name: "ws-forgotten", nodes: [{ id: "n", type: "code", config: { code: "return [{ n: 1 }];" } }] };
    const pipeline = (await (await t.fetch("/pipelines", { method: "POST", json: quick })).json()) as { id: string };
    const runs: string[] = [];
    for (let i = 0; i < 2; i++) {
      const run = (await (await t.fetch(`/pipelines/${pipeline.id}/run`, { method: "POST", json: {} })).json()) as {
        id: string;
      };
      await t.client.runs.waitUntilTerminal(run.id, { timeoutMs: 15_000 });
      runs.push(run.id);
    }
    // the log forgets them, as its retention would (an hour later)
    await t.sluice.executor.writes.flush();
    const db = new Database(t.db.url.replace(/^sqlite:/, ""));
    db.prepare(`delete from run_events where run_id in (?, ?)`).run(...runs);
    db.close();
    const client = await open();
    for (const runId of runs) {
      client.ws.send(JSON.stringify({ type: "subscribe", run_id: runId, since: 0 }));
      const terminal = await client.until((m) => m.type === "run.completed" && m.run_id === runId);
      expect(terminal).toMatchObject({ status: "success", seq: 0 });
    }
    client.ws.close();
  });
});
