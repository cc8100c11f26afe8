/**
 * Attack: an editor (or a viewer reading what a run wrote) uses a secret variable and a stored connection in a
 * pipeline whose requests fail against a server that echoes what it received, then reads the run logs, node errors,
 * DLQ, WebSocket events, hook payloads and the server log hoping to find the secrets in clear. Every one must show
 * `********` and never a secret, in any spelling (raw, URL-encoded, base64, upper-cased, hex).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPeer, type PeerServer } from "../../../core/test/engine/peer-server.js";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { capturingLogger, subscribe, waitForRun } from "./attack-support.js";

const VAR_SECRET = "var-secret-5be1c0de";
const TOKEN = "conn-token-a83f0c11";
const PASSWORD = "conn-password-6d2e77";
const HEADER_SECRET = "conn-header-secret-0b9d";
const SECRETS = [VAR_SECRET, TOKEN, PASSWORD, HEADER_SECRET];
/** Every spelling a secret must never appear in (raw, URL-encoded, base64, upper-cased, hex, base64 of the header). */
const SPELLINGS = SECRETS.flatMap((s) => [
  s,
  encodeURIComponent(s),
  Buffer.from(s).toString("base64"),
  `Bearer ${s}`,
  s.toUpperCase(),
  Buffer.from(s).toString("hex"),
  Buffer.from(s).toString("hex").toUpperCase(),
  Buffer.from(`Bearer ${s}`).toString("base64"),
]);
const MASK = "********";

const logger = capturingLogger();
let t: TestServer;
let echo: PeerServer;
let failing: PeerServer;
let hooks: PeerServer;

beforeAll(async () => {
  t = await startTestServer("sqlite", { logger });
  // an API that echoes credentials back in its rows, as received and transformed (upper-cased, hex, base64)
  echo = await startPeer((req) => {
    const auth = String(req.headers.authorization);
    const key = String(req.headers["x-api-key"]);
    return {
      json: [
        {
          id: 1,
          auth,
          password: PASSWORD,
          key,
          upper_auth: auth.toUpperCase(),
          upper_key: key.toUpperCase(),
          hex_auth: Buffer.from(auth).toString("hex"),
          hex_key: Buffer.from(key).toString("hex").toUpperCase(),
          b64_auth: Buffer.from(auth).toString("base64"),
        },
      ],
    };
  });
  // an API that fails and echoes the whole request (URL with its query, headers) in its error body
  failing = await startPeer((req) => ({ status: 500, text: `bad request ${req.url} ${JSON.stringify(req.headers)}` }));
  hooks = await startPeer(() => ({ status: 204 }));
  const extra = JSON.stringify({ token: TOKEN, headers: { "X-Api-Key": HEADER_SECRET } });
  expect(
    (
      await t.fetch("/connections", {
        method: "POST",
        json: { conn_id: "crm", type: "http", host: echo.url, login: "ann", password: PASSWORD, extra },
      })
    ).status,
  ).toBe(201);
  expect(
    (await t.fetch("/variables", { method: "POST", json: { key: "API_SECRET", value: VAR_SECRET, type: "secret" } }))
      .status,
  ).toBe(201);
});
afterAll(async () => {
  await Promise.all([echo?.close(), failing?.close(), hooks?.close()]);
  await t?.close();
});

function expectNoSecret(where: string, text: string): void {
  for (const s of SPELLINGS) expect(text, `${where} leaks ${s}`).not.toContain(s);
}

describe("secret values never leave a run in clear", () => {
  it("logs, node errors, DLQ entries and payloads, WebSocket events, hook payloads and the server log show ******** only", async () => {
    const pipeline = {
      name: "leaky",
      hooks: [
        { event: "node.failed", url: `${hooks.url}/node-failed` },
        { event: "run.failed", url: `${hooks.url}/run-failed` },
      ],
      nodes: [
        // rows carrying the connection's credentials (the echo API sends them back)
        { id: "pull", type: "source_api", config: { conn_id: "crm", path: "/rows" } },
        // the secret variable in the URL path, its query and a header; the server answers 500 echoing all of it
        {
          id: "push",
          type: "sink_api",
          config: {
            url: `${failing.url}/v1/\${var.API_SECRET}/items?key=\${var.API_SECRET}`,
            headers: { "x-auth": "${var.API_SECRET}" },
          },
        },
      ],
      edges: [{ from: "pull", to: "push" }],
    };
    const created = (await (await t.fetch("/pipelines", { method: "POST", json: pipeline })).json()) as { id: string };
    const ws = await subscribe(t, created.id);
    const triggered = (await (await t.fetch(`/pipelines/${created.id}/run`, { method: "POST", json: {} })).json()) as {
      id: string;
    };
    const run = await waitForRun(t, triggered.id);
    expect(run.status).toBe("failed");
    // the secrets really went out (so a leak would have had something to leak)
    expect(echo.received[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(failing.received[0]!.url).toContain(VAR_SECRET);

    // node error: the URL keeps origin and path, the secret in it is masked
    const push = run.node_runs.find((n) => n.node_id === "push")!;
    expect(push.error).toContain(`POST ${failing.url}/v1/${MASK}/items returned HTTP 500`);
    expectNoSecret("node error", JSON.stringify(run));
    expect(run.error).toContain(MASK);

    const logs = await (await t.fetch(`/runs/${run.id}/logs`)).text();
    expect(logs).toContain(MASK);
    expectNoSecret("run logs", logs);
    expectNoSecret("exported logs", await (await t.fetch(`/runs/${run.id}/logs/export`)).text());

    const dlq = (await (await t.fetch(`/pipelines/${created.id}/dlq`)).json()) as {
      node_id: string;
      error: string;
      payload: unknown[];
    }[];
    const entry = dlq.find((d) => d.node_id === "push")!;
    expect(entry.error).toContain(MASK);
    expect(entry.payload).toEqual([
      {
        id: 1,
        auth: `Bearer ${MASK}`,
        password: MASK,
        key: MASK,
        upper_auth: `BEARER ${MASK}`,
        upper_key: MASK,
        hex_auth: MASK,
        hex_key: MASK,
        b64_auth: MASK,
      },
    ]);
    expectNoSecret("DLQ", JSON.stringify(dlq));

    await t.sluice.hooks.idle();
    const hookBodies = hooks.received.map((r) => r.body);
    expect(hooks.received.map((r) => r.url).sort()).toEqual(["/node-failed", "/run-failed"]);
    for (const body of hookBodies) expect(body).toContain(MASK);
    expectNoSecret("hook payloads", hookBodies.join("\n"));

    const deadline = Date.now() + 10_000;
    while (!ws.raw.some((m) => m.includes('"run.failed"')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    ws.close();
    const events = ws.raw.join("\n");
    expect(events).toContain('"node.failed"');
    expect(events).toContain(MASK);
    expectNoSecret("WebSocket events", events);

    expectNoSecret("server log", logger.lines.join("\n"));
  });

  it("a dry run's node errors are masked too", async () => {
    const pipeline = {
      name: "leaky-dry",
      nodes: [{ id: "peek", type: "source_api", config: { url: `${failing.url}/peek/\${var.API_SECRET}` } }],
      edges: [],
    };
    const created = (await (await t.fetch("/pipelines", { method: "POST", json: pipeline })).json()) as { id: string };
    const body = await (await t.fetch(`/pipelines/${created.id}/dry-run`, { method: "POST", json: {} })).text();
    expect(body).toContain(`${failing.url}/peek/${MASK}`);
    expectNoSecret("dry run", body);
  });

  it("a failed connection test logs its cause to the server log with the secrets masked", async () => {
    const host = `${failing.url}/status?access_token=${TOKEN}`;
    const extra = JSON.stringify({ token: TOKEN });
    await t.fetch("/connections", {
      method: "POST",
      json: { conn_id: "status-api", type: "http", host, password: PASSWORD, extra },
    });
    const before = logger.lines.length;
    const result = await (await t.fetch("/connections/status-api/test", { method: "POST" })).text();
    expect(result).toMatch(/"success":false/);
    expectNoSecret("test result", result);
    const lines = logger.lines.slice(before).join("\n");
    expect(lines).toContain("connection test failed");
    expect(lines).toContain(MASK);
    expectNoSecret("server log", logger.lines.join("\n"));
  });
});
