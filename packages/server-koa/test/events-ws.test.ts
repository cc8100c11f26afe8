import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { startTestServer, type TestServer } from "../../../test-support/http.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer("sqlite");
});
afterAll(async () => t?.close());

interface Msg {
  type: string;
  seq?: number;
  run_id?: string;
  [k: string]: unknown;
}

/** Resolves once `ws` is open (its listeners are attached before: the server's `hello` may come right after). */
const opened = (ws: WebSocket) =>
  new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });

async function connect(
  path = "/ws",
): Promise<{ ws: WebSocket; messages: Msg[]; next(pred: (m: Msg) => boolean): Promise<Msg> }> {
  const ws = new WebSocket(`${t.baseUrl.replace("http", "ws")}${path}`);
  const messages: Msg[] = [];
  const waiters: { pred: (m: Msg) => boolean; resolve: (m: Msg) => void }[] = [];
  ws.on("message", (data) => {
    const m = JSON.parse(data.toString()) as Msg;
    messages.push(m);
    for (const w of [...waiters])
      if (w.pred(m)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
  });
  await opened(ws);
  return {
    ws,
    messages,
    next: (pred) =>
      new Promise<Msg>((resolve, reject) => {
        const found = messages.find(pred);
        if (found) return resolve(found);
        waiters.push({ pred, resolve });
        setTimeout(() => reject(new Error(`timed out; got ${JSON.stringify(messages)}`)), 5000);
      }),
  };
}

const ts = () => new Date().toISOString();

/**
 * Emits `count` log events of run `runId` (their messages `i message`) and its `run.completed`, and resolves once a
 * socket subscribed to the run has heard that: all of them are in the event log by then.
 */
async function logged(runId: string, count: number, message: string): Promise<void> {
  const watcher = await connect();
  watcher.ws.send(JSON.stringify({ type: "subscribe", run_id: runId }));
  await watcher.next((m) => m.type === "subscribed");
  for (let i = 0; i < count; i++)
    t.sluice.events.emit("log", {
      run_id: runId,
      pipeline_id: "p",
      node_id: null,
      level: "info",
      message: `${i} ${message}`,
      timestamp: ts(),
    });
  t.sluice.events.emit("run.completed", { run_id: runId, pipeline_id: "p", status: "success", timestamp: ts() });
  await watcher.next((m) => m.type === "run.completed");
  watcher.ws.close();
}

/** A socket and its frames, as they arrive: a browser's WebSocket hands a binary frame over as a Blob, not a string. */
async function raw(): Promise<{ ws: WebSocket; frames: { text: string; binary: boolean }[] }> {
  const ws = new WebSocket(`${t.baseUrl.replace("http", "ws")}/ws`);
  const frames: { text: string; binary: boolean }[] = [];
  ws.on("message", (data, binary) => frames.push({ text: data.toString(), binary }));
  await opened(ws);
  return { ws, frames };
}

describe("WebSocket event stream", () => {
  it("sends every message as a text frame; an event reaches every socket as the same text", async () => {
    const [a, b] = [await raw(), await raw()];
    const eventOf = (frames: { text: string }[]) => frames.find((f) => f.text.includes('"run-shared"'));
    await vi.waitFor(() => expect([a.frames.length, b.frames.length]).toEqual([1, 1])); // hello
    t.sluice.events.emit("run.started", { run_id: "run-shared", pipeline_id: "p", status: "running", timestamp: ts() });
    await vi.waitFor(() => expect([eventOf(a.frames), eventOf(b.frames)]).not.toContain(undefined));
    expect([...a.frames, ...b.frames].every((f) => !f.binary)).toBe(true);
    expect(eventOf(a.frames)!.text).toBe(eventOf(b.frames)!.text);
    expect(JSON.parse(eventOf(a.frames)!.text)).toMatchObject({
      type: "run.started",
      run_id: "run-shared",
      pipeline_id: "p",
      status: "running",
      seq: expect.any(Number),
    });
    a.ws.close();
    b.ws.close();
  });

  it("an event arrives as the same text live and replayed with `since`", async () => {
    const live = await raw();
    const textOf = (frames: { text: string }[]) =>
      frames.find((f) => f.text.includes('"run-replayed"') && f.text.includes('"node.completed"'))?.text;
    t.sluice.events.emit("node.completed", {
      run_id: "run-replayed",
      pipeline_id: "p",
      node_id: "n1",
      status: "success",
      row_count: 2,
      duration_ms: 1,
      timestamp: ts(),
    });
    await vi.waitFor(() => expect(textOf(live.frames)).toBeDefined());
    const late = await raw();
    late.ws.send(JSON.stringify({ type: "subscribe", run_id: "run-replayed", since: 0 }));
    await vi.waitFor(() => expect(textOf(late.frames)).toBeDefined());
    expect(textOf(late.frames)).toBe(textOf(live.frames));
    expect(JSON.parse(textOf(live.frames)!)).toMatchObject({ type: "node.completed", seq: expect.any(Number) });
    live.ws.close();
    late.ws.close();
  });

  it("carries text that is not ASCII intact, live and replayed: accents, CJK, emoji, a lone surrogate", async () => {
    const message = "café — 東京 🚀 \ud800 end";
    const live = await raw();
    const logOf = (frames: { text: string }[]) =>
      frames.find((f) => f.text.includes('"run-unicode"') && f.text.includes('"type":"log"'))?.text;
    t.sluice.events.emit("log", {
      run_id: "run-unicode",
      pipeline_id: "p",
      node_id: "n1",
      level: "info",
      message,
      timestamp: ts(),
    });
    await vi.waitFor(() => expect(logOf(live.frames)).toBeDefined());
    expect(JSON.parse(logOf(live.frames)!)).toMatchObject({ type: "log", message });
    const late = await raw();
    late.ws.send(JSON.stringify({ type: "subscribe", run_id: "run-unicode", since: 0 }));
    await vi.waitFor(() => expect(logOf(late.frames)).toBeDefined());
    expect(logOf(late.frames)).toBe(logOf(live.frames));
    live.ws.close();
    late.ws.close();
  });

  it("greets, filters by run_id and pipeline_id, and streams the documented message shape", async () => {
    const c = await connect("/api/ws");
    await c.next((m) => m.type === "hello");
    c.ws.send(JSON.stringify({ type: "subscribe", run_id: "run-A" }));
    await c.next((m) => m.type === "subscribed");
    t.sluice.events.emit("run.started", { run_id: "run-B", pipeline_id: "p", status: "running", timestamp: ts() });
    t.sluice.events.emit("node.completed", {
      run_id: "run-A",
      pipeline_id: "p",
      node_id: "n1",
      status: "success",
      row_count: 5,
      duration_ms: 3,
      timestamp: ts(),
    });
    const node = await c.next((m) => m.type === "node.completed");
    expect(node).toMatchObject({
      type: "node.completed",
      run_id: "run-A",
      pipeline_id: "p",
      node_id: "n1",
      status: "success",
      row_count: 5,
      duration_ms: 3,
    });
    expect(typeof node.seq).toBe("number");
    expect(c.messages.some((m) => m.run_id === "run-B")).toBe(false);
    c.ws.close();
  });

  it("a client that reconnects catches up on a run's events since a sequence number", async () => {
    const first = await connect();
    first.ws.send(JSON.stringify({ type: "subscribe", run_id: "run-C" }));
    await first.next((m) => m.type === "subscribed");
    t.sluice.events.emit("run.started", { run_id: "run-C", pipeline_id: "p", status: "running", timestamp: ts() });
    const started = await first.next((m) => m.type === "run.started");
    first.ws.terminate();
    t.sluice.events.emit("log", {
      run_id: "run-C",
      pipeline_id: "p",
      node_id: null,
      level: "info",
      message: "while away",
      timestamp: ts(),
    });
    t.sluice.events.emit("run.completed", { run_id: "run-C", pipeline_id: "p", status: "success", timestamp: ts() });
    // whether these two are committed before the new socket subscribes (and it hears them live: it hears every run
    // until then) or after (and the replay sends them), they arrive once each
    const second = await connect();
    second.ws.send(JSON.stringify({ type: "subscribe", run_id: "run-C", since: started.seq }));
    const done = await second.next((m) => m.type === "run.completed");
    expect(done.run_id).toBe("run-C");
    expect(second.messages.filter((m) => m.run_id === "run-C" && m.type !== "subscribed").map((m) => m.type)).toEqual([
      "log",
      "run.completed",
    ]);
    second.ws.close();
  });

  it("replays a run's thousands of events to a client that reads them, a page at a time, all of them", async () => {
    // pages of the log were read and sent in one go on SQLite: a client reading as fast as it could was dropped once
    // a few pages (over 1 MiB) were in flight, and the server was held meanwhile (found by a helper's sweep)
    const events = 6_000;
    const message = "x".repeat(500);
    await logged("run-long", events, message);
    const late = await connect();
    let closed = false;
    late.ws.on("close", () => (closed = true));
    late.ws.send(JSON.stringify({ type: "subscribe", run_id: "run-long", since: 0 }));
    await late.next((m) => m.type === "run.completed");
    const logs = late.messages.filter((m) => m.run_id === "run-long" && m.type === "log");
    expect(logs).toHaveLength(events);
    expect(logs.at(-1)?.message).toBe(`${events - 1} ${message}`);
    expect(closed).toBe(false);
    late.ws.close();
  });

  it("a replay stops when the socket subscribes again, and the new subscription's events come at once", async () => {
    const events = 6_000;
    await logged("run-long2", events, "y".repeat(500));
    const c = await connect();
    c.ws.send(JSON.stringify({ type: "subscribe", run_id: "run-long2", since: 0 }));
    await c.next((m) => m.run_id === "run-long2" && m.type === "log");
    c.ws.send(JSON.stringify({ type: "subscribe", run_id: "run-other" }));
    await c.next((m) => m.type === "subscribed" && m.run_id === "run-other");
    t.sluice.events.emit("run.started", { run_id: "run-other", pipeline_id: "p", status: "running", timestamp: ts() });
    await c.next((m) => m.run_id === "run-other" && m.type === "run.started");
    // a ping answered after that: a replay still going would have sent more by now
    c.ws.send(JSON.stringify({ type: "ping" }));
    await c.next((m) => m.type === "pong");
    const replayed = c.messages.filter((m) => m.run_id === "run-long2" && m.type === "log").length;
    expect(replayed).toBeLessThan(events);
    expect(c.messages.some((m) => m.run_id === "run-long2" && m.type === "run.completed")).toBe(false);
    c.ws.close();
  });

  it("never sends an event twice: a replay skips what the socket was already sent live", async () => {
    const c = await connect();
    await c.next((m) => m.type === "hello");
    // before any subscribe the socket hears every run: it gets run-D's events live
    t.sluice.events.emit("run.started", { run_id: "run-D", pipeline_id: "p", status: "running", timestamp: ts() });
    t.sluice.events.emit("log", {
      run_id: "run-D",
      pipeline_id: "p",
      node_id: null,
      level: "info",
      message: "heard live",
      timestamp: ts(),
    });
    await c.next((m) => m.type === "log" && m.run_id === "run-D");
    // then it subscribes to that run with an old `since`: the replay holds both events again, and sends neither
    c.ws.send(JSON.stringify({ type: "subscribe", run_id: "run-D", since: 0 }));
    await c.next((m) => m.type === "subscribed");
    t.sluice.events.emit("run.completed", { run_id: "run-D", pipeline_id: "p", status: "success", timestamp: ts() });
    await c.next((m) => m.type === "run.completed" && m.run_id === "run-D");
    // a ping answered after the completion: anything the replay would still send is in by now
    c.ws.send(JSON.stringify({ type: "ping" }));
    await c.next((m) => m.type === "pong");
    const events = c.messages.filter((m) => m.run_id === "run-D" && m.type !== "subscribed");
    expect(events.map((m) => m.type)).toEqual(["run.started", "log", "run.completed"]);
    expect(new Set(events.map((m) => m.seq)).size).toBe(3);
    c.ws.close();
  });

  it("answers bad messages with an error and unknown paths with 404 before the handshake", async () => {
    const c = await connect();
    c.ws.send("not json");
    expect((await c.next((m) => m.type === "error")).error).toMatch(/JSON/);
    c.ws.send(JSON.stringify({ type: "subscribe", run_id: "x", since: -1 }));
    expect((await c.next((m) => m.type === "error" && /since/.test(String(m.error)))).type).toBe("error");
    c.ws.close();
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${t.baseUrl.replace("http", "ws")}/nope`);
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.on("error", () => undefined);
    });
    expect(status).toBe(404);
  });

  it("checks client messages against the protocol schema: unknown types and mistyped fields are answered with an error", async () => {
    const c = await connect();
    c.ws.send(JSON.stringify({ type: "hello" }));
    expect((await c.next((m) => m.type === "error")).error).toMatch(/subscribe.*unsubscribe.*ping/);
    c.ws.send(JSON.stringify({ type: "subscribe", run_id: 42 }));
    expect((await c.next((m) => m.type === "error" && /run_id/.test(String(m.error)))).type).toBe("error");
    c.ws.send(JSON.stringify({ type: "ping" }));
    expect((await c.next((m) => m.type === "pong")).seq).toBeTypeOf("number");
    c.ws.send(JSON.stringify({ type: "subscribe", pipeline_id: "p-9" }));
    expect(await c.next((m) => m.type === "subscribed")).toEqual({
      type: "subscribed",
      pipeline_id: "p-9",
      seq: expect.any(Number),
    });
    c.ws.close();
  });
});
