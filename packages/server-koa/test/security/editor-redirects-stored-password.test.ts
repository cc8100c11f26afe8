/**
 * Attack: an editor, who never sees a connection's stored password (it reads back as `********`), points the
 * connection at a server of their own while keeping the password, then tests the connection: the server would send
 * the password there (HTTP Basic). The change must be refused unless the password is given again; an admin may
 * still keep it (SPEC: `********` or omitting it keeps the stored password).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../../../core/src/index.js";
import { startPeer, type PeerServer } from "../../../core/test/engine/peer-server.js";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { bearer, usersPerRole } from "../auth/users.js";

const PASSWORD = `admin-only-${randomBytes(12).toString("hex")}`;
let t: TestServer;
let tokens: Record<Role, string>;
let listener: PeerServer;

const as = (role: Role, path: string, init: RequestInit & { json?: unknown } = {}) =>
  t.fetch(path, { ...init, headers: { ...bearer(tokens[role]) } });

beforeAll(async () => {
  t = await startTestServer("sqlite");
  tokens = await usersPerRole(t);
  listener = await startPeer(() => ({ json: {} }));
  const created = await as("admin", "/connections", {
    method: "POST",
    json: { conn_id: "vault", type: "http", host: "http://127.0.0.1:9", login: "svc", password: PASSWORD },
  });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await listener?.close();
});

describe("attack: an editor points a connection elsewhere and keeps its stored password", () => {
  it("is refused with 403, whether the password is sent as ******** or omitted, and nothing reaches the listener", async () => {
    for (const body of [
      { type: "http", host: listener.url, login: "svc", password: "********" },
      { host: listener.url },
      { port: 8443 },
      // a PostgreSQL or MySQL connection takes host and port from extra
      { extra: JSON.stringify({ host: "127.0.0.1", port: 5433 }) },
    ]) {
      const res = await as("editor", "/connections/vault", { method: "PUT", json: body });
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 403]);
      expect(await res.text()).not.toContain(PASSWORD);
    }
    await as("editor", "/connections/vault/test", { method: "POST" });
    expect(listener.received).toHaveLength(0);
    expect((await t.sluice.connections.resolve("vault")).host).toBe("http://127.0.0.1:9");
  });

  it("an http connection's schema is its scheme: https to http is refused too; a database's schema is not", async () => {
    const tls = { conn_id: "tls", type: "http", host: "127.0.0.1", port: 9, schema: "https", password: PASSWORD };
    expect((await as("admin", "/connections", { method: "POST", json: tls })).status).toBe(201);
    const plain = await as("editor", "/connections/tls", { method: "PUT", json: { schema: "http" } });
    expect(plain.status).toBe(403);
    expect(await plain.text()).not.toContain(PASSWORD);
    expect((await t.sluice.connections.resolve("tls")).schema).toBe("https");
    const db = { conn_id: "wh", type: "postgres", host: "127.0.0.1", port: 9, schema: "sales", password: PASSWORD };
    expect((await as("admin", "/connections", { method: "POST", json: db })).status).toBe(201);
    const other = await as("editor", "/connections/wh", { method: "PUT", json: { schema: "finance" } });
    expect(other.status).toBe(200);
  });

  it("an editor who gives the password again may move it; an admin may keep it", async () => {
    const moved = await as("editor", "/connections/vault", {
      method: "PUT",
      json: { host: "http://127.0.0.1:10", password: "the editor's own" },
    });
    expect(moved.status).toBe(200);
    // the editor may change other fields and keep the password, also sending the unchanged host back (as the form does)
    expect(
      (
        await as("editor", "/connections/vault", {
          method: "PUT",
          json: { host: " http://127.0.0.1:10 ", login: "svc2" },
        })
      ).status,
    ).toBe(200);
    const kept = await as("admin", "/connections/vault", { method: "PUT", json: { host: "http://127.0.0.1:11" } });
    expect(kept.status).toBe(200);
    expect(await t.sluice.connections.resolve("vault")).toMatchObject({
      host: "http://127.0.0.1:11",
      password: "the editor's own",
      login: "svc2",
    });
  });
});
