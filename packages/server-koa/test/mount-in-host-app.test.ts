import type { AddressInfo } from "node:net";
import type http from "node:http";
import Koa from "koa";
import mount from "koa-mount";
import websockify from "koa-websocket";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createSluice, silentLogger, type Sluice } from "@sluice/core";
import { createApp, createEventStream, type EventStream } from "../src/index.js";
import { SluiceClient, type StreamEvent, type WebSocketLike } from "../../client/src/index.js";

/**
 * The documented way to embed the API in an existing Koa service: `host.use(mount("/etl", createApp(sluice)))`, and
 * the event stream on the host's koa-websocket server (docs/embedding.md).
 */
describe("createApp mounted into an existing Koa app under a prefix", () => {
  let sluice: Sluice;
  let stream: EventStream;
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    sluice = await createSluice({ database: ":memory:", logger: silentLogger, jwtSecret: "7".repeat(64) });
    await sluice.start();
    stream = createEventStream(sluice, { paths: ["/etl/api/ws"] });
    const host = websockify(new Koa(), stream.serverOptions);
    host.ws.use(stream.middleware);
    host.use(mount("/etl", createApp(sluice)));
    host.use((ctx) => {
      if (ctx.path === "/hello") ctx.body = { from: "host" };
    });
    server = host.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    stream?.close();
    await new Promise((r) => server?.close(r));
    await sluice?.close();
  });

  it("serves the API and health under the prefix and leaves the host's own routes alone", async () => {
    const created = await fetch(`${base}/etl/api/pipelines`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "mounted" }),
    });
    expect(created.status).toBe(201);
    expect((await fetch(`${base}/etl/health`)).status).toBe(200);
    expect(await (await fetch(`${base}/hello`)).json()).toEqual({ from: "host" });
    expect((await fetch(`${base}/api/pipelines`)).status).toBe(404);
    const bad = await fetch(`${base}/etl/api/pipelines/not-a-pipeline`);
    expect(bad.status).toBe(404);
    expect(await bad.json()).toHaveProperty("error");
  });

  it("works with the client given the prefixed base URL", async () => {
    const client = new SluiceClient({ baseUrl: `${base}/etl` });
    const list = await client.pipelines.list();
    expect(list.map((p) => p.name)).toContain("mounted");
  });

  it("serves the live event stream on the host's koa-websocket server, for the client with the prefixed base URL", async () => {
    const client = new SluiceClient({ baseUrl: `${base}/etl` });
    const received = new Promise<StreamEvent>((resolve) => {
      const sub = client.subscribe(
        (event) => {
          sub.close();
          resolve(event);
        },
        // since: 0 replays the event should it be emitted before the server applies the subscription
        { run_id: "run-mounted", since: 0, WebSocket: WebSocket as unknown as WebSocketLike },
      );
      void sub.ready.then(() => {
        sluice.events.emit("run.started", {
          run_id: "run-mounted",
          pipeline_id: "p",
          status: "running",
          timestamp: new Date().toISOString(),
        });
      });
    });
    expect(await received).toMatchObject({ type: "run.started", run_id: "run-mounted" });
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${base.replace("http", "ws")}/api/ws`);
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.on("error", () => undefined);
    });
    expect(status).toBe(404);
  });
});
