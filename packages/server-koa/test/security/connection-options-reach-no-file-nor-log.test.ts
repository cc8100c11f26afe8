/**
 * Attacks through a connection's `extra` options (found by a helper's black-box attack on 2026-11-27):
 * - PostgreSQL: every `extra` key becomes a connection-string option, and pg reads `sslcert`, `sslkey` and
 *   `sslrootcert` from the server's disk when it connects. An editor could make the server read any file (and offer
 *   it to a server of theirs as a client certificate), and tell from the node's error whether a file exists.
 * - MySQL: `extra` keys are mysql2 options, and `debug: true` prints every packet — queries with the secrets bound
 *   into them — to the server's own output.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { connectionFor } from "../../../../test-support/connections.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { runPipeline } from "./attack-support.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer("sqlite");
});
afterAll(async () => t?.close());

describe("attack: PostgreSQL certificate options naming files outside the file roots", () => {
  // a system file that exists, and one that does not; then the server's own key file (inside the temp root)
  const targets = () => ["/etc/passwd", "/etc/no-such-file-here", `${t.db.url.replace(/^sqlite:/, "")}.key`];

  it("are refused before anything is read, the same way whether the file exists or not", async () => {
    const errors: string[] = [];
    for (const [i, file] of targets().entries()) {
      const connection = {
        conn_id: `pgfile-${i}`,
        type: "postgres",
        host: "127.0.0.1",
        port: 1,
        schema: "x",
        login: "x",
        password: "x",
        extra: JSON.stringify({ sslmode: "require", sslcert: file, sslkey: file, sslrootcert: file }),
      };
      expect((await t.fetch("/connections", { method: "POST", json: connection })).status).toBe(201);
      const { run } = await runPipeline(t, {
        name: `pg file ${i}`,
        nodes: [{ id: "q", type: "source_db", config: { conn_id: `pgfile-${i}`, query: "select 1" } }],
        edges: [],
      });
      expect(run.status).toBe("failed");
      const error = run.node_runs[0]?.error ?? "";
      expect(error).toMatch(i < 2 ? /file roots/ : /state file/);
      expect(error).not.toMatch(/ENOENT|ECONNREFUSED|no such file/i);
      if (i < 2) errors.push(error.replaceAll(file, "FILE"));
      const test = (await (await t.fetch(`/connections/pgfile-${i}/test`, { method: "POST" })).json()) as {
        success: boolean;
      };
      expect(test.success).toBe(false);
    }
    // no oracle: an existing file and a missing one fail alike
    expect(new Set(errors).size).toBe(1);
  });
});

describe("attack: a PostgreSQL certificate option naming a large file inside the roots", () => {
  it("is refused before pg reads it on the server's thread (a 480 MB one held every request for seconds)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-bigcert-"));
    const big = path.join(dir, "big.pem");
    fs.writeFileSync(big, Buffer.alloc(2 * 1024 * 1024, 65));
    try {
      const connection = {
        conn_id: "pgbig",
        type: "postgres",
        host: "127.0.0.1",
        port: 1,
        schema: "x",
        login: "x",
        password: "x",
        extra: JSON.stringify({ sslmode: "require", sslrootcert: big }),
      };
      expect((await t.fetch("/connections", { method: "POST", json: connection })).status).toBe(201);
      const { run } = await runPipeline(t, {
        name: "pg big cert",
        nodes: [{ id: "q", type: "source_db", config: { conn_id: "pgbig", query: "select 1" } }],
        edges: [],
      });
      expect(run.status).toBe("failed");
      expect(run.node_runs[0]?.error).toMatch(
        /sslrootcert: '.*big\.pem' is larger than a certificate or key \(1 MiB\)/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("attack: options smuggled into a PostgreSQL connection's host", () => {
  it("a host holding a query (?sslcert=…) is refused, and no file is looked for", async () => {
    const connection = {
      conn_id: "pghost",
      type: "postgres",
      host: "127.0.0.1:1/db?sslcert=/etc/no-such-file-here&sslmode=require#",
      port: 1,
      schema: "x",
      login: "x",
      password: "x",
    };
    expect((await t.fetch("/connections", { method: "POST", json: connection })).status).toBe(201);
    const { run } = await runPipeline(t, {
      name: "pg host",
      nodes: [{ id: "q", type: "source_db", config: { conn_id: "pghost", query: "select 1" } }],
      edges: [],
    });
    expect(run.status).toBe("failed");
    const error = run.node_runs[0]?.error ?? "";
    expect(error).toMatch(/not a host name or IP address/);
    expect(error).not.toMatch(/ENOENT|no such file/i);
  });
});

/**
 * A fake PostgreSQL server on 127.0.0.1: asks every client for its password in clear (AuthenticationCleartextPassword)
 * and records what it is sent.
 */
async function passwordCatcher(): Promise<{ port: number; passwords: string[]; close(): void }> {
  const passwords: string[] = [];
  const server = net.createServer((socket) => {
    let started = false;
    socket.on("data", (data: Buffer) => {
      if (!started) {
        started = true;
        if (data.readInt32BE(4) === 80877103) return void socket.write("N"); // SSLRequest: no TLS here
        const ask = Buffer.alloc(9);
        ask.write("R", 0);
        ask.writeInt32BE(8, 1);
        ask.writeInt32BE(3, 5);
        return void socket.write(ask);
      }
      if (data[0] === 0x70) passwords.push(data.subarray(5, 1 + data.readInt32BE(1) - 1).toString());
      socket.destroy();
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as net.AddressInfo).port, passwords, close: () => server.close() };
}

describe("attack: a PostgreSQL connection without a password, to a server of the editor's", () => {
  it("is sent an empty password, never the server's own PGPASSWORD or ~/.pgpass", async () => {
    const catcher = await passwordCatcher();
    const before = process.env.PGPASSWORD;
    process.env.PGPASSWORD = "ServerEnvPgPassword";
    try {
      const connection = {
        conn_id: "pgnopass",
        type: "postgres",
        host: "127.0.0.1",
        port: catcher.port,
        schema: "x",
        login: "sluice",
      };
      expect((await t.fetch("/connections", { method: "POST", json: connection })).status).toBe(201);
      await runPipeline(t, {
        name: "pg no password",
        nodes: [{ id: "q", type: "source_db", config: { conn_id: "pgnopass", query: "select 1" } }],
        edges: [],
      });
      await t.fetch("/connections/pgnopass/test", { method: "POST" });
      expect(catcher.passwords.length).toBeGreaterThan(0); // the client did answer the fake server
      expect(catcher.passwords.every((p) => p === "")).toBe(true);
    } finally {
      if (before === undefined) delete process.env.PGPASSWORD;
      else process.env.PGPASSWORD = before;
      catcher.close();
    }
  });
});

const mysqlAvailable = (await testDialects()).includes("mysql");

describe.runIf(mysqlAvailable)("attack: mysql2's debug option", () => {
  let target: TestDatabase;
  beforeAll(async () => {
    target = await createTestDatabase("mysql");
  });
  afterAll(async () => target?.drop());

  it("prints nothing of a query's secrets to the server's output", async () => {
    const secret = "Kq9DebugSecret77";
    expect(
      (await t.fetch("/variables", { method: "POST", json: { key: "DBG", value: secret, type: "secret" } })).status,
    ).toBe(201);
    const connection = { ...connectionFor("mydebug", target), extra: JSON.stringify({ debug: true }) };
    expect((await t.fetch("/connections", { method: "POST", json: connection })).status).toBe(201);
    const printed: string[] = [];
    const spies = (["log", "info", "error", "warn", "debug"] as const).map((level) =>
      vi
        .spyOn(console, level)
        .mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(" "))),
    );
    try {
      const { run } = await runPipeline(t, {
        name: "mysql debug",
        nodes: [{ id: "q", type: "source_db", config: { conn_id: "mydebug", query: "select ${var.DBG} as v" } }],
        edges: [],
      });
      expect(run.status, JSON.stringify(run)).toBe("success");
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(printed.join("\n")).not.toContain(secret);
    expect(printed.join("\n")).not.toContain(Buffer.from(secret).toString("hex"));
  });
});
