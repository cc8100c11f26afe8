import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebSocketLike, StreamEvent } from "../src/index.js";
import { startTestServer, type TestServer } from "../../../test-support/http.js";
import { pollUntil } from "../../../test-support/poll.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer("sqlite");
});
afterAll(async () => t?.close());

const pipeline = {
  name: "client-events",
  nodes: [
    {
      id: "gen",
      type: "code",
      config: { code: "await new Promise(r => setTimeout(r, 200)); return [{ a: 1 }, { a: 2 }];" },
    },
  ],
  edges: [],
};

describe("client events and insights", () => {
  it("events.subscribe follows a run to its terminal event and then stops by itself", async () => {
    const p = await t.client.pipelines.create(pipeline);
    const received: StreamEvent[] = [];
    let closed = false;
    const done = new Promise<void>((resolve) => {
      const sub = t.client.events.subscribe(
        { pipeline_id: p.id },
        (e) => {
          received.push(e);
          if (e.type === "run.completed") resolve();
        },
        { WebSocket: WebSocket as unknown as WebSocketLike },
      );
      void sub.ready.then(async () => {
        const run = await t.client.runs.trigger(p.id);
        // a second, run-scoped subscription that starts late replays from the beginning and closes at the end
        const late = t.client.events.subscribe({ run_id: run.id, since: 0 }, () => undefined, {
          WebSocket: WebSocket as unknown as WebSocketLike,
          onClose: () => (closed = true),
        });
        await late.ready;
      });
    });
    await done;
    const types = received.map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining(["run.created", "run.started", "node.started", "node.completed", "run.completed"]),
    );
    expect(received.find((e) => e.type === "node.completed")).toMatchObject({ node_id: "gen", row_count: 2 });
    // the late subscription may still be connecting and replaying
    await pollUntil(() => closed || undefined, { timeoutMs: 15_000 });
    expect(closed).toBe(true);
  });

  it("a run's subscription delivers only that run's events, also those the socket hears before it subscribes", async () => {
    const ts = () => new Date().toISOString();
    let subscribed!: () => void;
    const serverSubscribed = new Promise<void>((resolve) => (subscribed = resolve));
    // a real socket whose `subscribe` goes out only after it has heard another run's event: until the server handles
    // the subscribe, a new socket hears every run
    class LateSubscribe extends WebSocket {
      override send(data: string): void {
        this.on("message", (raw) => {
          const message = JSON.parse(raw.toString()) as { type: string; run_id?: string };
          if (message.run_id === "run-other") super.send(data);
          if (message.type === "subscribed") subscribed();
        });
        t.sluice.events.emit("run.started", {
          run_id: "run-other",
          pipeline_id: "p",
          status: "running",
          timestamp: ts(),
        });
      }
    }
    const received: StreamEvent[] = [];
    const done = new Promise<void>((resolve) =>
      t.client.events.subscribe(
        { run_id: "run-mine" },
        (e) => {
          received.push(e);
          if (e.type === "run.completed") resolve();
        },
        { WebSocket: LateSubscribe as unknown as WebSocketLike },
      ),
    );
    await serverSubscribed;
    t.sluice.events.emit("run.started", { run_id: "run-mine", pipeline_id: "p", status: "running", timestamp: ts() });
    t.sluice.events.emit("run.completed", { run_id: "run-mine", pipeline_id: "p", status: "success", timestamp: ts() });
    await done;
    expect(received.map((e) => `${e.run_id} ${e.type}`)).toEqual(["run-mine run.started", "run-mine run.completed"]);
  });

  it("runs.wait, insights, scheduler and purge go through the API", async () => {
    const p = await t.client.pipelines.create({ ...pipeline, name: "client-insights", schedule: "0 3 * * *" });
    const run = await t.client.runs.trigger(p.id);
    const finished = await t.client.runs.wait(run.id, { timeoutMs: 15_000 });
    expect(finished.status).toBe("success");
    const summary = await t.client.insights.summary();
    expect(summary.find((s) => s.id === p.id)).toMatchObject({
      last_run_status: "success",
      runs_total: 1,
      runs_success: 1,
    });
    const dashboard = await t.client.insights.dashboard();
    expect(dashboard.recent_runs.some((r) => r.id === run.id)).toBe(true);
    expect((await t.client.insights.search("client-insights")).some((r) => r.id === p.id)).toBe(true);
    expect((await t.client.scheduler.status()).find((s) => s.pipeline_id === p.id)).toMatchObject({
      schedule: "0 3 * * *",
      enabled: true,
    });
    expect(await t.client.scheduler.deps(p.id)).toEqual([]);
    expect(await t.client.system.purge(30)).toEqual({ deleted: 0, days: 30 });
    expect((await t.client.runs.get(run.id)).id).toBe(run.id);
  });

  it("connections and variables through the client: secrets stay masked", async () => {
    expect((await t.client.connections.types()).map((c) => c.type)).toEqual([
      "postgres",
      "mysql",
      "sqlite",
      "http",
      "sftp",
      "s3",
      "generic",
    ]);
    const created = await t.client.connections.create({
      conn_id: "client-conn",
      type: "sqlite",
      host: "/nonexistent/x.db",
      password: "pw-123",
    });
    expect(created.password).toBe("********");
    expect((await t.client.connections.test("client-conn")).success).toBe(false);
    expect((await t.client.connections.update("client-conn", { host: "/tmp/y.db" })).host).toBe("/tmp/y.db");
    expect((await t.client.connections.list()).find((c) => c.conn_id === "client-conn")?.password).toBe("");
    expect(await t.client.connections.usedBy("client-conn")).toEqual([]);
    await t.client.connections.delete("client-conn");
    await expect(t.client.connections.get("client-conn")).rejects.toMatchObject({ status: 404 });
    expect((await t.client.variables.set({ key: "client_secret", value: "v", type: "secret" })).value).toBe("********");
    expect((await t.client.variables.get("client_secret")).type).toBe("secret");
    await t.client.variables.delete("client_secret");
    expect((await t.client.variables.list()).some((v) => v.key === "client_secret")).toBe(false);
  });
});
