import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import type { AddressInfo } from "node:net";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONNECTORS } from "../../core/src/index.js";
import { MYSQL_ADMIN_URL, PG_ADMIN_URL, tempDir, testDialects } from "../../../test-support/databases.js";
import { startTestServer, type TestServer } from "../../../test-support/http.js";

const dialects = await testDialects();
const json = async <T>(r: Response) => (await r.json()) as T;
type Conn = Record<string, unknown>;

/** A port nothing listens on: bind, read the port, close. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe.each(dialects)("%s connections API", (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(dialect);
  });
  afterAll(async () => t?.close());

  it(`${dialect}: create 201, get masks the password and decrypts extra, list hides both, duplicate 409`, async () => {
    const created = await t.fetch("/connections", {
      method: "POST",
      json: {
        conn_id: "warehouse",
        type: "postgres",
        host: "db.internal",
        port: 5433,
        schema: "dw",
        login: "etl",
        password: "p@ss:/?#%",
        extra: '{"sslmode":"require"}',
      },
    });
    expect(created.status).toBe(201);
    const body = await json<Conn>(created);
    expect(body).toMatchObject({
      conn_id: "warehouse",
      type: "postgres",
      host: "db.internal",
      port: 5433,
      password: "********",
    });
    expect(JSON.stringify(body)).not.toContain("p@ss");
    const one = await json<Conn>(await t.fetch("/connections/warehouse"));
    expect(one).toMatchObject({ password: "********", extra: '{"sslmode":"require"}' });
    expect(one.id).toBeTruthy();
    const list = await json<Conn[]>(await t.fetch("/connections"));
    const listed = list.find((c) => c.conn_id === "warehouse")!;
    expect(listed.password).toBe("");
    expect(listed).not.toHaveProperty("extra");
    expect(listed.id).toBeTruthy();
    const dup = await t.fetch("/connections", { method: "POST", json: { conn_id: "warehouse", type: "mysql" } });
    expect(dup.status).toBe(409);
    expect(await json<Conn>(dup)).toHaveProperty("error");
  });

  it(`${dialect}: update keeps the password with ******** or when omitted, replaces it otherwise; delete 204`, async () => {
    await t.fetch("/connections", {
      method: "POST",
      json: { conn_id: "upd", type: "postgres", host: "h", login: "u", password: "first" },
    });
    await t.fetch("/connections/upd", { method: "PUT", json: { type: "postgres", host: "h2", password: "********" } });
    expect((await t.sluice.connections.resolve("upd")).password).toBe("first");
    await t.fetch("/connections/upd", { method: "PUT", json: { host: "h3" } });
    const kept = await t.sluice.connections.resolve("upd");
    expect(kept).toMatchObject({ host: "h3", password: "first" });
    const changed = await t.fetch("/connections/upd", { method: "PUT", json: { password: "second" } });
    expect(changed.status).toBe(200);
    expect((await t.sluice.connections.resolve("upd")).password).toBe("second");
    expect((await t.fetch("/connections/upd", { method: "DELETE" })).status).toBe(204);
    expect((await t.fetch("/connections/upd")).status).toBe(404);
    expect((await t.fetch("/connections/upd", { method: "DELETE" })).status).toBe(404);
  });

  it(`${dialect}: rejects bad input with 400 JSON (slug, type, port, extra, unknown field)`, async () => {
    for (const bad of [
      { conn_id: "Bad Id", type: "postgres" },
      { conn_id: "-x", type: "postgres" },
      { conn_id: "a".repeat(64), type: "postgres" },
      { conn_id: "ok1", type: "oracle" },
      { conn_id: "ok2", type: "postgres", port: "5432x" },
      { conn_id: "ok3", type: "postgres", extra: "{not json" },
      { conn_id: "ok4", type: "postgres", surprise: 1 },
      { type: "postgres" },
    ]) {
      const res = await t.fetch("/connections", { method: "POST", json: bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(await json<Conn>(res)).toHaveProperty("error");
    }
  });

  it(`${dialect}: paginates, and lists the pipelines that use a connection`, async () => {
    for (const id of ["pg-a", "pg-b", "pg-c"])
      await t.fetch("/connections", { method: "POST", json: { conn_id: id, type: "sqlite", host: "/tmp/x.db" } });
    const page = await json<{ items: Conn[]; total: number; page: number; per_page: number; pages: number }>(
      await t.fetch("/connections?page=1&per_page=2"),
    );
    expect(page.items).toHaveLength(2);
    expect(page.per_page).toBe(2);
    expect(page.total).toBeGreaterThanOrEqual(3);
    expect((await t.fetch("/connections?page=0")).status).toBe(400);
    const p = await json<{ id: string }>(
      await t.fetch("/pipelines", {
        method: "POST",
        json: {
          name: "uses pg-a",
          nodes: [{ id: "src", type: "source_db", config: { conn_id: "pg-a", query: "select 1" } }],
        },
      }),
    );
    const usedBy = await json<{ pipeline_id: string; node_ids: string[] }[]>(
      await t.fetch("/connections/pg-a/used-by"),
    );
    expect(usedBy).toEqual([{ pipeline_id: p.id, name: "uses pg-a", node_ids: ["src"] }]);
    expect(await json<unknown[]>(await t.fetch("/connections/pg-b/used-by"))).toEqual([]);
    expect((await t.fetch("/connections/nope/used-by")).status).toBe(404);
  });
});

describe("connection types and URIs", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("sqlite");
  });
  afterAll(async () => t?.close());

  it("GET /connection-types lists exactly the seven types with the spec's labels and fields", async () => {
    expect(await json<unknown>(await t.fetch("/connection-types"))).toEqual([
      { type: "postgres", label: "PostgreSQL", fields: ["host", "port", "schema", "login", "password"] },
      { type: "mysql", label: "MySQL", fields: ["host", "port", "schema", "login", "password"] },
      { type: "sqlite", label: "SQLite", fields: ["host"] },
      { type: "http", label: "HTTP / REST API", fields: ["host", "port", "login", "password", "extra"] },
      { type: "sftp", label: "SFTP / SSH", fields: ["host", "port", "login", "password", "extra"] },
      { type: "s3", label: "Amazon S3", fields: ["extra"] },
      { type: "generic", label: "Generic (any TCP service)", fields: ["host", "port", "login", "password", "extra"] },
    ]);
  });

  it("builds postgres URIs and mysql DSNs as SPEC part 2, URL-encoding credentials", () => {
    const base = { conn_id: "c", host: "db", schema: "app", login: "us er", password: "p@ss:/?#%", extra: {} };
    const pgUri = CONNECTORS.postgres.uri({ ...base, type: "postgres", port: null });
    expect(pgUri).toBe("postgres://us%20er:p%40ss%3A%2F%3F%23%25@db:5432/app?sslmode=disable");
    const parsed = new URL(pgUri);
    expect(decodeURIComponent(parsed.password)).toBe("p@ss:/?#%");
    expect(
      CONNECTORS.postgres.uri({
        ...base,
        type: "postgres",
        port: 6543,
        extra: { sslmode: "require", connect_timeout: 5 },
      }),
    ).toBe("postgres://us%20er:p%40ss%3A%2F%3F%23%25@db:6543/app?sslmode=require&connect_timeout=5");
    expect(CONNECTORS.mysql.uri({ ...base, type: "mysql", port: null, login: "root", password: "pw" })).toBe(
      "root:pw@tcp(db:3306)/app?charset=utf8mb4",
    );
    expect(CONNECTORS.sqlite.uri({ ...base, type: "sqlite", port: null, host: "/data/app.db" })).toBe("/data/app.db");
  });
});

describe("connection tests against real servers", () => {
  let t: TestServer;
  let peer: http.Server;
  let peerUrl: string;
  const seenAuth: string[] = [];
  beforeAll(async () => {
    t = await startTestServer("sqlite");
    peer = http.createServer((req, res) => {
      seenAuth.push(req.headers.authorization ?? "");
      res
        .writeHead(req.headers.authorization === `Basic ${Buffer.from("api:k3y").toString("base64")}` ? 200 : 401)
        .end("{}");
    });
    await new Promise<void>((r) => peer.listen(0, "127.0.0.1", r));
    peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => peer.close(r));
  });

  const create = (conn: Conn) => t.fetch("/connections", { method: "POST", json: conn });
  const test = async (connId: string) => {
    const started = Date.now();
    const res = await t.fetch(`/connections/${connId}/test`, { method: "POST" });
    expect(res.status).toBe(200);
    const body = await json<{ success: boolean; message?: string; driver?: string; error?: string }>(res);
    return { ...body, ms: Date.now() - started };
  };
  const expectFailure = (r: { success: boolean; error?: string; ms: number }) => {
    expect(r.success).toBe(false);
    expect(r.error).toMatch(/server logs/);
    expect(r.ms).toBeLessThan(6000);
  };

  it("postgres: succeeds with pg against the local server; fails for an unknown role and a closed port", async () => {
    const u = new URL(PG_ADMIN_URL);
    await create({
      conn_id: "pg-ok",
      type: "postgres",
      host: u.hostname,
      port: Number(u.port || 5432),
      schema: "postgres",
      login: u.username || "postgres",
      password: "",
    });
    expect(await test("pg-ok")).toMatchObject({ success: true, driver: "pg" });
    await create({
      conn_id: "pg-role",
      type: "postgres",
      host: u.hostname,
      port: Number(u.port || 5432),
      schema: "postgres",
      login: "no_such_role_x",
      password: "secret-pw",
    });
    expectFailure(await test("pg-role"));
    await create({
      conn_id: "pg-closed",
      type: "postgres",
      host: "127.0.0.1",
      port: await closedPort(),
      schema: "postgres",
      login: "postgres",
      password: "pw",
    });
    expectFailure(await test("pg-closed"));
  });

  it("mysql: pings with mysql2; a wrong password and a closed port fail", async () => {
    const u = new URL(MYSQL_ADMIN_URL);
    await create({
      conn_id: "my-ok",
      type: "mysql",
      host: u.hostname,
      port: Number(u.port || 3306),
      login: u.username || "root",
      password: decodeURIComponent(u.password),
    });
    expect(await test("my-ok")).toMatchObject({ success: true, driver: "mysql2" });
    await create({
      conn_id: "my-bad",
      type: "mysql",
      host: u.hostname,
      port: Number(u.port || 3306),
      login: "root",
      password: "definitely-wrong",
    });
    expectFailure(await test("my-bad"));
    await create({
      conn_id: "my-closed",
      type: "mysql",
      host: "127.0.0.1",
      port: await closedPort(),
      login: "root",
      password: "",
    });
    expectFailure(await test("my-closed"));
  });

  it("sqlite: opens an existing file read-only; a missing file fails and is not created", async () => {
    const dir = tempDir();
    const file = path.join(dir, "exists.db");
    new Database(file).close();
    await create({ conn_id: "lite-ok", type: "sqlite", host: file });
    expect(await test("lite-ok")).toMatchObject({ success: true, driver: "better-sqlite3" });
    const missing = path.join(dir, "missing.db");
    await create({ conn_id: "lite-missing", type: "sqlite", host: missing });
    expectFailure(await test("lite-missing"));
    expect(fs.existsSync(missing)).toBe(false);
  });

  it("http: sends the connection's basic auth to the base URL; a 401 is a failure", async () => {
    await create({ conn_id: "api-ok", type: "http", host: peerUrl, login: "api", password: "k3y" });
    expect(await test("api-ok")).toMatchObject({ success: true, driver: "undici" });
    await create({ conn_id: "api-bad", type: "http", host: peerUrl, login: "api", password: "wrong" });
    expectFailure(await test("api-bad"));
    expect(seenAuth).toContain(`Basic ${Buffer.from("api:k3y").toString("base64")}`);
  });

  it("generic: a TCP connect to an open port succeeds, to a closed one fails", async () => {
    const port = Number(new URL(peerUrl).port);
    await create({ conn_id: "tcp-ok", type: "generic", host: "127.0.0.1", port });
    expect(await test("tcp-ok")).toMatchObject({ success: true, driver: "tcp" });
    await create({ conn_id: "tcp-closed", type: "generic", host: "127.0.0.1", port: await closedPort() });
    expectFailure(await test("tcp-closed"));
  });

  it("the failure never carries the password, and an unknown connection is 404", async () => {
    await create({
      conn_id: "leak",
      type: "mysql",
      host: "127.0.0.1",
      port: await closedPort(),
      login: "root",
      password: "Sup3r-S3cret-Value",
    });
    const r = await t.fetch("/connections/leak/test", { method: "POST" });
    expect(await r.text()).not.toContain("Sup3r-S3cret-Value");
    expect((await t.fetch("/connections/nope/test", { method: "POST" })).status).toBe(404);
  });
});
