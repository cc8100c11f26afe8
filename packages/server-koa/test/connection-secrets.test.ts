import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { AddressInfo } from "node:net";
import S3rver from "s3rver";
import ssh2 from "ssh2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSluice, silentLogger } from "../../core/src/index.js";
import { tempDir } from "../../../test-support/databases.js";
import { startTestServer, type TestServer } from "../../../test-support/http.js";

const json = async <T>(r: Response) => (await r.json()) as T;

/**
 * An ed25519 host key ssh2 can read back: about 1 in 250 keys from ssh2's own generator is one its parser rejects
 * ("Malformed OpenSSH private key"), which made this test fail now and then.
 */
function sshHostKey(): string {
  for (;;) {
    const key = ssh2.utils.generateKeyPairSync("ed25519").private;
    if (!(ssh2.utils.parseKey(key) instanceof Error)) return key;
  }
}

describe("secrets never sit in the SQLite file or its WAL in plaintext", () => {
  it("connection password, extra and secret variables are encrypted at rest", async () => {
    const dir = tempDir();
    const db = path.join(dir, "secrets.db");
    const sluice = await createSluice({ database: db, logger: silentLogger, jwtSecret: "4".repeat(64) });
    const password = "PlainPasswordMarker-7f3a";
    const extraToken = "ExtraTokenMarker-91bc";
    const secret = "SecretVariableMarker-c0de";
    await sluice.connections.create({
      conn_id: "c1",
      type: "http",
      host: "https://api.example.test",
      login: "u",
      password,
      extra: JSON.stringify({ token: extraToken }),
    });
    await sluice.variables.upsert({ key: "api_token", value: secret, type: "secret" });
    await sluice.variables.upsert({ key: "plain_one", value: "visible-by-design", type: "string" });
    // read the raw bytes while the database is open (data may still be in the WAL) and after closing
    const raw = () =>
      Buffer.concat([db, `${db}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f))).toString(
        "latin1",
      );
    const before = raw();
    expect(before).toContain("visible-by-design"); // proves the bytes read are the real data
    for (const marker of [password, extraToken, secret]) expect(before).not.toContain(marker);
    await sluice.close();
    const after = raw();
    for (const marker of [password, extraToken, secret]) expect(after).not.toContain(marker);
  });
});

describe("variables API", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("sqlite");
  });
  afterAll(async () => t?.close());

  it("POST creates (201) then updates (200); secrets are masked everywhere and ******** keeps them", async () => {
    const created = await t.fetch("/variables", {
      method: "POST",
      json: { key: "db.password", value: "hunter2!", type: "secret" },
    });
    expect(created.status).toBe(201);
    expect(await json<Record<string, unknown>>(created)).toMatchObject({
      key: "db.password",
      value: "********",
      type: "secret",
    });
    const again = await t.fetch("/variables", {
      method: "POST",
      json: { key: "db.password", value: "hunter3!", type: "secret" },
    });
    expect(again.status).toBe(200);
    expect((await t.sluice.secrets.variable("db.password")).value).toBe("hunter3!");
    await t.fetch("/variables/db.password", { method: "PUT", json: { value: "********", type: "secret" } });
    expect((await t.sluice.secrets.variable("db.password")).value).toBe("hunter3!");
    await t.fetch("/variables", { method: "POST", json: { key: "region", value: "eu-west-1" } });
    const list = await json<{ key: string; value: string }[]>(await t.fetch("/variables"));
    expect(list.find((v) => v.key === "region")?.value).toBe("eu-west-1");
    expect(list.find((v) => v.key === "db.password")?.value).toBe("********");
    expect(JSON.stringify(list)).not.toContain("hunter");
    const search = await (await t.fetch("/search?q=db.pass")).text();
    expect(search).not.toContain("hunter");
    expect((await json<{ value: string }>(await t.fetch("/variables/db.password"))).value).toBe("********");
  });

  it("a new secret sent as ******** (the mask, which only keeps a stored value) is refused, and nothing is stored", async () => {
    for (const [method, path] of [
      ["POST", "/variables"],
      ["PUT", "/variables/fresh.secret"],
    ] as const) {
      const res = await t.fetch(path, { method, json: { key: "fresh.secret", value: "********", type: "secret" } });
      expect([method, res.status]).toEqual([method, 400]);
    }
    expect((await t.fetch("/variables/fresh.secret")).status).toBe(404);
  });

  it("an update without type keeps a secret secret; ******** never turns it into a readable string", async () => {
    await t.fetch("/variables", { method: "POST", json: { key: "api.token", value: "tok-1", type: "secret" } });
    const kept = await t.fetch("/variables/api.token", { method: "PUT", json: { value: "********" } });
    expect(kept.status).toBe(200);
    expect(await json<Record<string, unknown>>(kept)).toMatchObject({ value: "********", type: "secret" });
    expect((await t.sluice.secrets.variable("api.token")).value).toBe("tok-1");
    const changed = await t.fetch("/variables/api.token", { method: "PUT", json: { value: "tok-2" } });
    expect(await json<Record<string, unknown>>(changed)).toMatchObject({ value: "********", type: "secret" });
    const posted = await t.fetch("/variables", { method: "POST", json: { key: "api.token", value: "tok-3" } });
    expect(await json<Record<string, unknown>>(posted)).toMatchObject({ value: "********", type: "secret" });
    expect((await t.sluice.secrets.variable("api.token")).value).toBe("tok-3");
    const reveal = await t.fetch("/variables/api.token", {
      method: "PUT",
      json: { value: "********", type: "string" },
    });
    expect(reveal.status).toBe(400);
    expect((await t.sluice.secrets.variable("api.token")).value).toBe("tok-3");
    expect((await json<{ value: string }>(await t.fetch("/variables/api.token"))).value).toBe("********");
    // an explicit downgrade with a new value is allowed and does not reveal the old one
    const plain = await t.fetch("/variables/api.token", { method: "PUT", json: { value: "public", type: "string" } });
    expect(await json<Record<string, unknown>>(plain)).toMatchObject({ value: "public", type: "string" });
  });

  it("validates keys and sizes, paginates, deletes with 204, and lists the pipelines using a variable", async () => {
    for (const bad of [
      { key: "1abc", value: "x" },
      { key: "a b", value: "x" },
      { key: "ok", value: 5 },
      { key: "ok", value: "x", type: "weird" },
      { key: "ok", value: "x".repeat(1024 * 1024 + 1) },
    ]) {
      const res = await t.fetch("/variables", { method: "POST", json: bad });
      expect(res.status, JSON.stringify(bad).slice(0, 60)).toBe(400);
    }
    expect(
      (await t.fetch("/variables", { method: "POST", json: { key: "big", value: "x".repeat(1024 * 1024) } })).status,
    ).toBe(201);
    const page = await json<{ items: unknown[]; per_page: number }>(await t.fetch("/variables?page=1&per_page=1"));
    expect(page.items).toHaveLength(1);
    const p = await json<{ id: string }>(
      await t.fetch("/pipelines", {
        method: "POST",
        json: {
          name: "uses var",
          nodes: [{ id: "n", type: "source_api", config: { url: "http://127.0.0.1:1/${var.region}" } }],
        },
      }),
    );
    expect(await json<unknown>(await t.fetch("/variables/region/used-by"))).toEqual([
      { pipeline_id: p.id, name: "uses var", node_ids: ["n"] },
    ]);
    expect((await t.fetch("/variables/region", { method: "DELETE" })).status).toBe(204);
    expect((await t.fetch("/variables/region")).status).toBe(404);
    expect((await t.fetch("/variables/bad%20key")).status).toBe(400);
  });
});

describe("sftp connection test against a real SSH server (ssh2 server mode)", () => {
  let server: ssh2.Server;
  let port: number;
  let t: TestServer;
  beforeAll(async () => {
    const hostKey = sshHostKey();
    server = new ssh2.Server({ hostKeys: [hostKey] }, (client) => {
      client
        .on("authentication", (ctx) =>
          ctx.method === "password" && ctx.username === "deploy" && ctx.password === "sftp-pw"
            ? ctx.accept()
            : ctx.reject(),
        )
        .on("ready", () => {
          client.on("session", (accept) => {
            const session = accept();
            session.on("sftp", (acceptSftp) => {
              const sftp = acceptSftp();
              sftp.on("REALPATH", (reqid) =>
                sftp.name(reqid, [{ filename: "/", longname: "/", attrs: {} as ssh2.Attributes }]),
              );
            });
          });
        })
        .on("error", () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
    t = await startTestServer("sqlite");
  });
  afterAll(async () => {
    await t?.close();
    server?.close();
  });

  it("connects, authenticates and opens an SFTP session; a wrong password fails", async () => {
    await t.fetch("/connections", {
      method: "POST",
      json: { conn_id: "files", type: "sftp", host: "127.0.0.1", port, login: "deploy", password: "sftp-pw" },
    });
    const ok = await json<{ success: boolean; driver: string }>(
      await t.fetch("/connections/files/test", { method: "POST" }),
    );
    expect(ok).toMatchObject({ success: true, driver: "ssh2" });
    await t.fetch("/connections", {
      method: "POST",
      json: { conn_id: "files-bad", type: "sftp", host: "127.0.0.1", port, login: "deploy", password: "nope" },
    });
    const bad = await json<{ success: boolean; error: string }>(
      await t.fetch("/connections/files-bad/test", { method: "POST" }),
    );
    expect(bad.success).toBe(false);
    expect(bad.error).toMatch(/server logs/);
  });

  it("s3: HeadBucket against a local S3-compatible server (s3rver) succeeds; a missing bucket fails", async () => {
    const dir = tempDir();
    const s3 = new S3rver({
      port: 0,
      address: "127.0.0.1",
      silent: true,
      directory: dir,
      configureBuckets: [{ name: "landing", configs: [] }],
    });
    const { port: s3port } = (await s3.run()) as AddressInfo;
    try {
      const extra = (bucket: string) =>
        JSON.stringify({
          bucket,
          region: "us-east-1",
          endpoint: `http://127.0.0.1:${s3port}`,
          access_key_id: "S3RVER",
          secret_access_key: "S3RVER",
        });
      await t.fetch("/connections", {
        method: "POST",
        json: { conn_id: "s3-ok", type: "s3", extra: extra("landing") },
      });
      expect(await json<unknown>(await t.fetch("/connections/s3-ok/test", { method: "POST" }))).toMatchObject({
        success: true,
        driver: "@aws-sdk/client-s3",
      });
      await t.fetch("/connections", {
        method: "POST",
        json: { conn_id: "s3-missing", type: "s3", extra: extra("nope") },
      });
      expect(await json<unknown>(await t.fetch("/connections/s3-missing/test", { method: "POST" }))).toMatchObject({
        success: false,
      });
    } finally {
      await s3.close();
    }
  });

  it("s3: a closed endpoint fails within the bound with the generic message", async () => {
    const s = net.createServer();
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    const closed = (s.address() as AddressInfo).port;
    await new Promise((r) => s.close(r));
    await t.fetch("/connections", {
      method: "POST",
      json: {
        conn_id: "bucket",
        type: "s3",
        extra: JSON.stringify({
          bucket: "b",
          region: "us-east-1",
          endpoint: `http://127.0.0.1:${closed}`,
          access_key_id: "AK",
          secret_access_key: "SK",
        }),
      },
    });
    const started = Date.now();
    const r = await json<{ success: boolean; error: string }>(
      await t.fetch("/connections/bucket/test", { method: "POST" }),
    );
    expect(r.success).toBe(false);
    expect(Date.now() - started).toBeLessThan(6000);
  });
});
