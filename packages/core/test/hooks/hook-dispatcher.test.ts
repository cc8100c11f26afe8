import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSluice, storeOf, type Sluice } from "../../src/service/create-sluice.js";
import { silentLogger } from "../../src/logger.js";
import { HookDispatcher } from "../../src/hooks/hook-dispatcher.js";
import { SluiceEvents } from "../../src/events.js";
import { createHttpClient } from "../../src/engine/http/http-client.js";
import { createTestDatabase, type TestDatabase } from "../../../../test-support/databases.js";

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

let server: http.Server;
let base: string;
const received: Received[] = [];
let failuresLeft = 0;
let db: TestDatabase;
let sluice: Sluice;
const runLogs: { runId: string; level: string; message: string }[] = [];
let dispatcher: HookDispatcher;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c: Buffer) => (data += c.toString()));
    req.on("end", () => {
      if (req.url === "/flaky" && failuresLeft > 0) {
        failuresLeft--;
        res.writeHead(503).end();
        return;
      }
      received.push({ path: req.url ?? "", headers: req.headers, body: JSON.parse(data) as Record<string, unknown> });
      res.writeHead(req.url === "/down" ? 500 : 204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  db = await createTestDatabase("sqlite");
  sluice = await createSluice({ database: db.url, logger: silentLogger });
  dispatcher = new HookDispatcher({
    store: storeOf(sluice),
    events: sluice.events,
    logger: silentLogger,
    retryBaseMs: 5,
    appendRunLog: async (runId, level, message) => {
      runLogs.push({ runId, level, message });
    },
  });
  dispatcher.start();
});
afterAll(async () => {
  await dispatcher.stop();
  await sluice.close();
  await db.drop();
  await new Promise((r) => server.close(r));
});

const ts = () => new Date().toISOString();

describe("hook delivery", () => {
  it("POSTs the documented JSON to matching enabled hooks and logs the result on the run", async () => {
    const p = await sluice.pipelines.create({
      name: "hooked",
      hooks: [
        {
          event: "run.failed",
          type: "webhook",
          url: `${base}/failed`,
          headers: { "x-secret": "s3cr3t" },
          enabled: true,
        },
        { event: "run.failed", type: "slack", url: `${base}/slack`, enabled: true },
        { event: "run.failed", type: "webhook", url: `${base}/disabled`, enabled: false },
        { event: "run.started", type: "webhook", url: `${base}/started`, enabled: true },
      ],
    });
    sluice.events.emit("run.failed", {
      run_id: "r1",
      pipeline_id: p.id,
      status: "failed",
      error: "boom",
      timestamp: ts(),
    });
    await dispatcher.idle();
    const byPath = Object.fromEntries(received.map((r) => [r.path, r]));
    expect(byPath["/failed"]?.body).toMatchObject({
      event: "run.failed",
      pipeline_id: p.id,
      pipeline_name: "hooked",
      run_id: "r1",
      status: "failed",
      error: "boom",
    });
    expect(byPath["/failed"]?.headers["x-secret"]).toBe("s3cr3t");
    expect(byPath["/slack"]?.body).toEqual({ text: 'Sluice pipeline "hooked" failed (run r1): boom' });
    expect(byPath["/disabled"]).toBeUndefined();
    expect(byPath["/started"]).toBeUndefined();
    expect(runLogs.filter((l) => l.runId === "r1" && /delivered/.test(l.message))).toHaveLength(2);
    expect(runLogs.map((l) => l.message).join()).not.toContain("s3cr3t");
  });

  it("retries with backoff, and logs a final failure after 4 attempts", async () => {
    failuresLeft = 2;
    const p = await sluice.pipelines.create({
      name: "retrying",
      hooks: [
        { event: "run.succeeded", url: `${base}/flaky` },
        { event: "run.succeeded", url: `${base}/down` },
      ],
    });
    sluice.events.emit("run.completed", { run_id: "r2", pipeline_id: p.id, status: "success", timestamp: ts() });
    await dispatcher.idle();
    expect(received.filter((r) => r.path === "/flaky")).toHaveLength(1);
    expect(received.filter((r) => r.path === "/down")).toHaveLength(4);
    const logs = runLogs.filter((l) => l.runId === "r2").map((l) => `${l.level} ${l.message}`);
    expect(logs).toContainEqual(
      expect.stringMatching(/^info hook #1 \(http:\/\/127\.0\.0\.1:\d+\) run.succeeded delivered .*attempt 3/),
    );
    expect(logs).toContainEqual(
      expect.stringMatching(
        /^warning hook #2 \(http:\/\/127\.0\.0\.1:\d+\) run.succeeded failed after 4 attempts: HTTP 500/,
      ),
    );
  });

  it("delivers sla.missed with the date and deadline", async () => {
    const p = await sluice.pipelines.create({ name: "sla", hooks: [{ event: "sla.missed", url: `${base}/sla` }] });
    sluice.events.emit("sla.missed", {
      pipeline_id: p.id,
      pipeline_name: "sla",
      date: "2026-11-22",
      deadline: "2026-11-22T06:00:00.000Z",
      timestamp: ts(),
    });
    await dispatcher.idle();
    expect(received.find((r) => r.path === "/sla")?.body).toMatchObject({
      event: "sla.missed",
      date: "2026-11-22",
      deadline: "2026-11-22T06:00:00.000Z",
      run_id: null,
    });
  });

  it("never reaches a link-local / metadata address, even through a DNS name (no request leaves the machine)", async () => {
    const logs: string[] = [];
    let lookups = 0;
    // its own bus, so the suite's other dispatcher (system DNS) never sees this hook
    const bus = new SluiceEvents();
    const guarded = new HookDispatcher({
      store: storeOf(sluice),
      events: bus,
      logger: silentLogger,
      retries: 0,
      // the test resolver maps the name to the metadata address; the guard refuses it inside the lookup
      http: createHttpClient({ resolver: async () => (lookups++, [{ address: "169.254.169.254", family: 4 }]) }),
      appendRunLog: async (_runId, level, message) => {
        logs.push(`${level} ${message}`);
      },
    });
    guarded.start();
    try {
      const p = await sluice.pipelines.create({
        name: "ssrf",
        hooks: [{ event: "run.succeeded", url: "http://metadata.test/latest/meta-data" }],
      });
      bus.emit("run.completed", { run_id: "r-ssrf", pipeline_id: p.id, status: "success", timestamp: ts() });
      await guarded.idle();
      expect(lookups).toBeGreaterThan(0);
      expect(logs).toContainEqual(
        expect.stringMatching(
          /^warning hook #1 .* run.succeeded failed after 1 attempts: .*(link-local|metadata|not allowed|forbidden)/i,
        ),
      );
    } finally {
      await guarded.stop();
    }
  });
});
