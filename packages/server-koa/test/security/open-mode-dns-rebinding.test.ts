/**
 * DNS rebinding against a server in open mode (carried on the needs-an-issue list, fixed 2026-11-27): a page on
 * evil.example points a name of its own at the server once loaded, and the victim's browser sends the page's
 * requests here as same-origin — `Host: rebind.evil.example:PORT`, `Origin: http://rebind.evil.example:PORT` — which
 * in open mode would act as administrator. Each request below is what that browser would send.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";

let t: TestServer;
let allowing: TestServer;
beforeAll(async () => {
  t = await startTestServer("sqlite", {}, { proxy: true });
  allowing = await startTestServer("sqlite", {}, { allowedHosts: ["sluice.example.com", "https://other.example.org"] });
});
afterAll(async () => {
  await t?.close();
  await allowing?.close();
});

interface Answer {
  status: number;
  body: string;
  upgraded: boolean;
}

/** A request to `server` with the headers a browser would send, `Host` included. */
function send(
  server: TestServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  json?: unknown,
): Promise<Answer> {
  const body = json === undefined ? undefined : JSON.stringify(json);
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.baseUrl}${path}`, {
      method,
      headers: { ...(body ? { "content-type": "application/json" } : {}), ...headers },
    });
    req.on("response", (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, upgraded: false }));
    });
    req.on("upgrade", (_res, socket) => {
      socket.destroy();
      resolve({ status: 101, body: "", upgraded: true });
    });
    req.on("error", reject);
    req.end(body);
  });
}

const port = (server: TestServer) => new URL(server.baseUrl).port;
const rebound = (server: TestServer, name = "rebind.evil.example") => ({
  host: `${name}:${port(server)}`,
  origin: `http://${name}:${port(server)}`,
  "sec-fetch-site": "same-origin",
});
const upgrade = {
  connection: "Upgrade",
  upgrade: "websocket",
  "sec-websocket-version": "13",
  "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
};

describe("attack: a rebinding page against a server with no users", () => {
  it("cannot read pipelines, create the first user, or open the event stream", async () => {
    const read = await send(t, "GET", "/api/pipelines", rebound(t));
    expect(read.status).toBe(403);
    expect(JSON.parse(read.body)).toMatchObject({ code: "forbidden" });
    expect(JSON.parse(read.body).error).toMatch(/DNS rebinding.*--allowed-hosts/);
    const setup = await send(t, "POST", "/api/auth/users", rebound(t), { username: "mallory", password: "p4ssw0rd!!" });
    expect(setup.status).toBe(403);
    const events = await send(t, "GET", "/ws", { ...rebound(t), ...upgrade });
    expect(events.upgraded).toBe(false);
    expect(events.status).toBe(403);
    expect(JSON.parse((await send(t, "GET", "/api/auth/setup", {})).body)).toEqual({ needs_setup: true });
  });

  it("cannot get past it with X-Forwarded-Host, even on a server trusting a proxy", async () => {
    const forwarded = await send(t, "GET", "/api/pipelines", { ...rebound(t), "x-forwarded-host": "localhost" });
    expect(forwarded.status).toBe(403);
  });

  it("names no web page controls still work: IP addresses, localhost, dotless names, the allowed hosts", async () => {
    for (const host of [
      `127.0.0.1:${port(t)}`,
      `localhost:${port(t)}`,
      `app.localhost:${port(t)}`,
      "sluice:8080",
      "[::1]",
    ])
      expect((await send(t, "GET", "/api/pipelines", { host })).status, host).toBe(200);
    expect((await send(t, "GET", "/api/health", rebound(t))).status).toBe(200);
    expect((await send(allowing, "GET", "/api/pipelines", rebound(allowing, "sluice.example.com"))).status).toBe(200);
    // given as an origin, its host name counts
    expect((await send(allowing, "GET", "/api/pipelines", rebound(allowing, "other.example.org"))).status).toBe(200);
    expect((await send(allowing, "GET", "/api/pipelines", rebound(allowing))).status).toBe(403);
  });

  it("once a user exists, credentials protect the server and any host name works", async () => {
    const created = await send(
      t,
      "POST",
      "/api/auth/users",
      { host: `127.0.0.1:${port(t)}` },
      {
        username: "first",
        password: "p4ssw0rd!!",
      },
    );
    expect(created.status).toBe(201);
    const login = await send(t, "POST", "/api/auth/login", {}, { username: "first", password: "p4ssw0rd!!" });
    const { token } = JSON.parse(login.body) as { token: string };
    const read = await send(t, "GET", "/api/pipelines", {
      host: "sluice.corp.example",
      authorization: `Bearer ${token}`,
    });
    expect(read.status).toBe(200);
    // and a page without credentials gets the ordinary 401
    expect((await send(t, "GET", "/api/pipelines", rebound(t))).status).toBe(401);
  });
});
