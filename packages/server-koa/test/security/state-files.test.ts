/**
 * Attacks on the server's own state files (issue 14, docs/security.md): an editor sends the pipelines and connections
 * an attacker would to read or replace the store database, the secrets key and the JWT secret. The server runs
 * with default file roots and its database in the OS temp dir — itself a default root — so only the state-file
 * refusal stands between the attacker and the keys.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSluice, type Logger, type Sluice, storeOf } from "../../../core/src/index.js";
import { startServer, type RunningServer } from "../../src/index.js";
import { SluiceClient } from "../../../client/src/index.js";
import { tempDir } from "../../../../test-support/databases.js";
import { PASSWORD, tokenFor, type ApiCaller } from "../auth/users.js";

let sluice: Sluice;
let server: RunningServer;
let dataDir: string;
let dbFile: string;
let keyFile: string;
let jwtFile: string;
let editor: SluiceClient;
/** Everything the server logged, as text. */
const serverLog: string[] = [];
/** Bytes that must never reach the attacker: key, JWT secret, password hashes. */
let secrets: string[] = [];

const capture = (level: string) => (message: string, fields?: Record<string, unknown>) =>
  void serverLog.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
const logger: Logger = {
  debug: capture("debug"),
  info: capture("info"),
  warn: capture("warn"),
  error: capture("error"),
};

const snapshot = (file: string) => {
  const stat = fs.statSync(file);
  return { content: fs.readFileSync(file).toString("hex"), mode: stat.mode & 0o777, ino: stat.ino };
};

beforeAll(async () => {
  dataDir = tempDir("sluice-state-files-");
  dbFile = path.join(dataDir, "sluice.db");
  keyFile = `${dbFile}.key`;
  jwtFile = path.join(dataDir, ".svc-jwt-secret");
  // no jwtSecret, no secretKey: both live in files beside the database, as after a plain `npm start`
  sluice = await createSluice({ database: dbFile, logger });
  await sluice.start();
  server = await startServer(sluice, { host: "127.0.0.1", port: 0 });
  const baseUrl = `http://127.0.0.1:${server.port}`;
  const caller: ApiCaller = {
    fetch(p, init = {}) {
      const { json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (json !== undefined) headers.set("content-type", "application/json");
      return fetch(`${baseUrl}/api${p}`, {
        ...rest,
        headers,
        body: json !== undefined ? JSON.stringify(json) : rest.body,
      });
    },
  };
  // the first user (created anonymously) adds the attacker's editor account
  const first = await caller.fetch("/auth/users", {
    method: "POST",
    json: { username: "owner", password: PASSWORD, role: "superadmin" },
  });
  expect(first.status).toBe(201);
  const owner = new SluiceClient({ baseUrl, token: await tokenFor(caller, "owner") });
  await owner.auth.createUser({ username: "editor", password: PASSWORD, role: "editor" });
  editor = new SluiceClient({ baseUrl, token: await tokenFor(caller, "editor") });
  const hashes = (await storeOf(sluice).knex("users").select("password_hash")) as { password_hash: string }[];
  secrets = [
    fs.readFileSync(keyFile, "utf8").trim(),
    fs.readFileSync(jwtFile, "utf8").trim(),
    ...hashes.flatMap((h) => [h.password_hash, h.password_hash.split("$").at(-1)!]),
  ];
  expect(secrets.every((s) => s.length >= 32)).toBe(true);
});

afterAll(async () => {
  await server?.close(1000);
  await sluice?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface RunOutcome {
  status: string;
  errors: string[];
  /** Everything the attacker can read back about the run. */
  readable: string;
}

/** Creates and runs a pipeline as the editor; returns its outcome and all that the API shows about it. */
async function runAsEditor(name: string, nodes: unknown[], edges: unknown[] = []): Promise<RunOutcome> {
  const pipeline = await editor.pipelines.create({ name, nodes, edges } as Parameters<
    typeof editor.pipelines.create
  >[0]);
  const { id } = await editor.runs.trigger(pipeline.id);
  const run = await editor.runs.wait(id, { timeoutMs: 60_000, intervalMs: 100 });
  const previews = await Promise.all(
    run.node_runs.map((n) => editor.runs.preview(id, n.node_id).catch((e: Error) => e.message)),
  );
  const readable = JSON.stringify([run, await editor.runs.logs(id), previews, await editor.runs.dlq(pipeline.id)]);
  return { status: run.status, errors: run.node_runs.map((n) => n.error ?? ""), readable };
}

/** Fails when any secret appears in `text` (or anywhere in the server log). */
function expectNoLeak(text: string): void {
  for (const secret of secrets) {
    expect(text).not.toContain(secret);
    expect(serverLog.join("\n")).not.toContain(secret);
  }
}

const readNode = (filePath: string, format: "csv" | "json" | "jsonl" = "csv") => ({
  id: "steal",
  type: "source_file",
  config: { path: filePath, format, header: false },
});

describe("attack: read the server's state files with source_file", () => {
  it("refuses the key, the JWT secret, the database and its WAL by absolute, relative, `..`, case and trailing-slash paths", async () => {
    const files = () => ["sluice.db.key", ".svc-jwt-secret", "sluice.db", "sluice.db-wal", "sluice.db-shm"];
    const paths = [
      ...files().map((f) => path.join(dataDir, f)),
      ...files().map((f) => `../${f}`),
      `${dataDir}/files/../sluice.db.key`,
      `${dataDir}//./sluice.db.key/`,
      `${dataDir}/SLUICE.DB.KEY`,
      path.relative(path.join(dataDir, "files"), keyFile),
    ];
    const before = [keyFile, jwtFile].map(snapshot);
    for (const p of paths) {
      const outcome = await runAsEditor(`read ${p}`, [readNode(p)]);
      expect(outcome.status, p).toBe("failed");
      expect(outcome.errors.join(" "), p).toMatch(
        /server's own state files|outside the allowed file roots|does not exist/,
      );
      expectNoLeak(outcome.readable);
    }
    expect([keyFile, jwtFile].map(snapshot)).toEqual(before);
  });

  it("refuses a symlink in the temp dir that points at the key, also when it is created after a first good run", async () => {
    const lair = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-attacker-"));
    try {
      fs.symlinkSync(keyFile, path.join(lair, "key.csv"));
      fs.symlinkSync(dataDir, path.join(lair, "data"));
      for (const p of [path.join(lair, "key.csv"), path.join(lair, "data", ".svc-jwt-secret")]) {
        const outcome = await runAsEditor(`symlink ${p}`, [readNode(p)]);
        expect(outcome.status, p).toBe("failed");
        expect(outcome.errors.join(" "), p).toMatch(/server's own state files/);
        expectNoLeak(outcome.readable);
      }
      // a harmless file first; the attacker swaps it for a link before the next run
      const later = path.join(lair, "later.csv");
      fs.writeFileSync(later, "harmless\n");
      expect((await runAsEditor("later ok", [readNode(later)])).status).toBe("success");
      fs.rmSync(later);
      fs.symlinkSync(keyFile, later);
      const outcome = await runAsEditor("later swapped", [readNode(later)]);
      expect(outcome.status).toBe("failed");
      expectNoLeak(outcome.readable);
    } finally {
      fs.rmSync(lair, { recursive: true, force: true });
    }
  });

  it.runIf(process.platform === "linux")(
    "refuses /proc/self/cwd, /proc/self/root, /proc/self/fd and /dev/fd paths to the state files",
    async () => {
      // the store database is held open by this very process: find its descriptor as an attacker would guess it
      const fd = fs.readdirSync("/proc/self/fd").find((n) => {
        try {
          return fs.readlinkSync(`/proc/self/fd/${n}`) === fs.realpathSync(dbFile);
        } catch {
          return false;
        }
      });
      expect(fd).toBeDefined();
      const paths = [
        `/proc/self/cwd/${path.relative(process.cwd(), keyFile)}`,
        `/proc/self/root${keyFile}`,
        `/proc/${process.pid}/root${jwtFile}`,
        `/proc/self/fd/${fd}`,
        `/dev/fd/${fd}`,
        "/proc/self/environ",
      ];
      for (const p of paths) {
        const outcome = await runAsEditor(`proc ${p}`, [readNode(p)]);
        expect(outcome.status, p).toBe("failed");
        expect(outcome.errors.join(" "), p).toMatch(
          /outside the allowed file roots|server's own state files|inside \/(proc|dev)/,
        );
        expectNoLeak(outcome.readable);
      }
    },
  );
});

describe("attack: replace the server's state files with sink_file", () => {
  it("refuses to overwrite the JWT secret, the key or the database, and leaves content and mode as they were", async () => {
    const targets = [
      jwtFile,
      "../.svc-jwt-secret",
      keyFile,
      `${dataDir}/files/../sluice.db.key`,
      dbFile,
      `${dbFile}-wal`,
    ];
    const before = [jwtFile, keyFile].map(snapshot);
    for (const target of targets) {
      const outcome = await runAsEditor(
        `overwrite ${target}`,
        [
          { id: "forge", type: "code", config: { code: `return [{ secret: "${"ab".repeat(32)}" }];` } },
          { id: "write", type: "sink_file", config: { path: target, format: "csv", header: false } },
        ],
        [{ from: "forge", to: "write" }],
      );
      expect(outcome.status, target).toBe("failed");
      expect(outcome.errors.join(" "), target).toMatch(/server's own state files/);
    }
    expect([jwtFile, keyFile].map(snapshot)).toEqual(before);
    expect(fs.readdirSync(dataDir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});

describe("attack: a sqlite connection to the server's own database", () => {
  const ownDbPaths = () => [dbFile, "../sluice.db", `/proc/self/cwd/${path.relative(process.cwd(), dbFile)}`, keyFile];

  it("cannot be tested", async () => {
    for (const [i, host] of [...ownDbPaths(), `file:${dbFile}`, `file:${dbFile}?mode=ro`].entries()) {
      const connId = `own-test-${i}`;
      await editor.connections.create({ conn_id: connId, type: "sqlite", host });
      const result = await editor.connections.test(connId);
      expect(result.success, host).toBe(false);
      expectNoLeak(JSON.stringify(result));
    }
  });

  it("source_db cannot read the users table and migrate cannot make the editor a superadmin", async () => {
    const before = snapshot(keyFile);
    for (const [i, host] of ownDbPaths().entries()) {
      const connId = `own-run-${i}`;
      await editor.connections.create({ conn_id: connId, type: "sqlite", host });
      const read = await runAsEditor(`read users ${host}`, [
        { id: "users", type: "source_db", config: { conn_id: connId, query: "SELECT * FROM users" } },
      ]);
      expect(read.status, host).toBe("failed");
      expect(read.errors.join(" "), host).toMatch(/server's own state files|outside the allowed file roots/);
      expectNoLeak(read.readable);
      const promote = await runAsEditor(`promote ${host}`, [
        {
          id: "promote",
          type: "migrate",
          config: { conn_id: connId, sql: "UPDATE users SET role = 'superadmin' WHERE username = 'editor'" },
        },
      ]);
      expect(promote.status, host).toBe("failed");
      expectNoLeak(promote.readable);
    }
    expect(
      (await storeOf(sluice).knex("users").where({ username: "editor" }).first("role")) as { role: string },
    ).toEqual({ role: "editor" });
    expect(await editor.auth.me()).toMatchObject({ role: "editor" });
    expect(snapshot(keyFile)).toEqual(before);
  });

  it("a connection to a harmless file cannot be pointed at the database later through a symlink", async () => {
    const lair = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-attacker-"));
    try {
      const link = path.join(lair, "app.db");
      await editor.connections.create({ conn_id: "later-db", type: "sqlite", host: link });
      fs.symlinkSync(dbFile, link);
      expect((await editor.connections.test("later-db")).success).toBe(false);
      const read = await runAsEditor("read users later", [
        {
          id: "users",
          type: "source_db",
          config: { conn_id: "later-db", query: "SELECT username, password_hash FROM users" },
        },
      ]);
      expect(read.status).toBe("failed");
      expect(read.errors.join(" ")).toMatch(/server's own state files/);
      expectNoLeak(read.readable);
    } finally {
      fs.rmSync(lair, { recursive: true, force: true });
    }
  });

  it("ATTACH from an allowed database cannot reach the server's database", async () => {
    const lair = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-attacker-"));
    try {
      await editor.connections.create({ conn_id: "decoy-db", type: "sqlite", host: path.join(lair, "decoy.db") });
      const read = await runAsEditor("attach", [
        {
          id: "users",
          type: "source_db",
          config: {
            conn_id: "decoy-db",
            query: `ATTACH DATABASE '${dbFile}' AS own; SELECT password_hash FROM own.users`,
          },
        },
      ]);
      expect(read.status).toBe("failed");
      expect(read.errors.join(" ")).toMatch(/ATTACH is not allowed/);
      expectNoLeak(read.readable);
      const promote = await runAsEditor("attach promote", [
        {
          id: "promote",
          type: "migrate",
          config: {
            conn_id: "decoy-db",
            sql: [
              `ATTACH DATABASE '${dbFile}' AS own`,
              "UPDATE own.users SET role = 'superadmin' WHERE username = 'editor'",
            ],
          },
        },
      ]);
      expect(promote.status).toBe("failed");
      expect(promote.errors.join(" ")).toMatch(/ATTACH is not allowed/);
      expect(await editor.auth.me()).toMatchObject({ role: "editor" });
    } finally {
      fs.rmSync(lair, { recursive: true, force: true });
    }
  });

  it("the sql node cannot write a copy of its database next to the state files with VACUUM INTO", async () => {
    const copy = path.join(dataDir, "stolen.db");
    const outcome = await runAsEditor(
      "vacuum into",
      [
        { id: "gen", type: "code", config: { code: "return [{ a: 1 }];" } },
        { id: "dump", type: "sql", config: { sql: `VACUUM INTO '${copy}'` } },
      ],
      [{ from: "gen", to: "dump" }],
    );
    expect(outcome.status).toBe("failed");
    expect(outcome.errors.join(" ")).toMatch(/VACUUM INTO is not allowed/);
    expect(fs.existsSync(copy)).toBe(false);
  });

  it("a sqlite connection outside the file roots is refused at use and creates no file there", async () => {
    // a directory under none of the roots (the OS temp dir is one, and a checkout may live below it)
    const outsideDir = [os.homedir(), "/var/tmp", path.parse(process.cwd()).root].find((d) =>
      path.relative(os.tmpdir(), d).startsWith(".."),
    )!;
    const outside = path.join(outsideDir, `sluice-outside-${process.pid}.db`);
    await editor.connections.create({ conn_id: "outside-db", type: "sqlite", host: outside });
    // the answer is SPEC's generic one; why (the roots, which the editor need not learn) is in the server log
    const before = serverLog.length;
    expect(await editor.connections.test("outside-db")).toEqual({
      success: false,
      error: "connection test failed for 'outside-db'; see the server logs for details",
    });
    expect(serverLog.slice(before).join("\n")).toMatch(/connection test refused.*outside the allowed file roots/);
    const write = await runAsEditor("create outside", [
      { id: "create", type: "migrate", config: { conn_id: "outside-db", sql: "CREATE TABLE t (a INTEGER)" } },
    ]);
    expect(write.status).toBe("failed");
    expect(write.errors.join(" ")).toMatch(/outside the allowed file roots/);
    expect(fs.existsSync(outside)).toBe(false);
  });
});
