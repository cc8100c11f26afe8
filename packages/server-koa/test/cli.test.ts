import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, tempDir, testDialects } from "../../../test-support/databases.js";

/** The CLI is tested as users run it: the built bin (npm install builds it via `prepare`). */
const BIN = fileURLToPath(new URL("../bin/sluice.js", import.meta.url));
const VERSION = (
  JSON.parse(fs.readFileSync(fileURLToPath(new URL("../../core/package.json", import.meta.url)), "utf8")) as {
    version: string;
  }
).version;
const dirs: string[] = [];
const serverDialects = await testDialects();
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function run(args: string[], env: Record<string, string> = {}) {
  const cwd = tempDir();
  dirs.push(cwd);
  return spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 20_000,
  });
}

interface Served {
  url: string;
  cwd: string;
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

async function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const cwd = tempDir();
  dirs.push(cwd);
  const child = spawn(process.execPath, [BIN, "serve", "--host", "127.0.0.1", ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 15_000);
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+?)\/api/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on("exit", (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
  return {
    url,
    cwd,
    stop: (signal) =>
      new Promise((resolve) => {
        child.removeAllListeners("exit");
        child.on("exit", (code) => resolve(code));
        child.kill(signal);
      }),
  };
}

describe("sluice CLI", () => {
  it("--version prints the package version", () => {
    const res = run(["--version"]);
    expect(res.status).toBe(0);
    expect(res.stdout.trim()).toBe(VERSION);
  });

  it("--help lists the commands and serve flags", () => {
    const res = run(["--help"]);
    expect(res.status).toBe(0);
    for (const word of [
      "serve",
      "generate-key",
      "--db",
      "--api-key",
      "--max-concurrent-runs",
      "--file-roots",
      "--no-ui",
      "migrate",
      "--unlock",
      "--heartbeat-ms",
      "--stale-ms",
      "--instance-id",
    ]) {
      expect(res.stdout).toContain(word);
    }
  });

  it("generate-key prints svc_ + 48 hex as its last line, different each time", () => {
    const a = run(["generate-key"]).stdout.trim().split("\n").at(-1);
    const b = run(["generate-key"]).stdout.trim().split("\n").at(-1);
    expect(a).toMatch(/^svc_[0-9a-f]{48}$/);
    expect(b).toMatch(/^svc_[0-9a-f]{48}$/);
    expect(a).not.toBe(b);
  });

  it("a bad flag exits non-zero with one line, no stack trace", () => {
    const res = run(["serve", "--bogus"]);
    expect(res.status).not.toBe(0);
    expect(res.stderr.trim().split("\n")).toHaveLength(1);
    expect(res.stderr).toMatch(/bogus/);
    expect(res.stderr).not.toMatch(/\n\s+at /);
    const port = run(["serve", "--port", "seventy"]);
    expect(port.status).not.toBe(0);
    expect(port.stderr.trim().split("\n")).toHaveLength(1);
    expect(run(["frobnicate"]).status).not.toBe(0);
  });

  it("--stale-ms not above twice --heartbeat-ms (flag or env) exits 2 with one line naming both", () => {
    for (const res of [
      run(["serve", "--port", "0", "--heartbeat-ms", "1000", "--stale-ms", "2000"]),
      run(["serve", "--port", "0"], { SLUICE_HEARTBEAT_MS: "1000", SLUICE_STALE_MS: "1500" }),
    ]) {
      expect(res.status).toBe(2);
      expect(res.stderr.trim().split("\n")).toHaveLength(1);
      expect(res.stderr).toMatch(/--stale-ms \(\d+\) must exceed twice --heartbeat-ms \(1000\)/);
    }
    const badId = run(["serve", "--port", "0", "--instance-id", "a:b"]);
    expect(badId.status).toBe(2);
    expect(badId.stderr).toContain("--instance-id");
  });

  it("an unreachable database exits non-zero with one line", () => {
    const res = run(["serve", "--port", "0", "--db", "postgres://nobody@127.0.0.1:1/none"]);
    expect(res.status).not.toBe(0);
    expect(res.stderr.trim().split("\n")).toHaveLength(1);
    expect(res.stderr).toMatch(/cannot open postgres database/);
  });

  it("serve answers on the chosen port with a SQLite file and shuts down cleanly on SIGTERM", async () => {
    const s = await serve(["--port", "0", "--db", "data/my.db"]);
    const info = (await (await fetch(`${s.url}/api/system/info`)).json()) as Record<string, unknown>;
    expect(info).toMatchObject({ version: VERSION, store: "sqlite", max_concurrent_runs: 8 });
    expect(fs.existsSync(path.join(s.cwd, "data/my.db"))).toBe(true);
    expect((await fetch(`${s.url}/health`)).status).toBe(200);
    const ui = await fetch(`${s.url}/pipelines`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('<div id="root">');
    expect(await s.stop("SIGTERM")).toBe(0);
  });

  it("--no-ui (or SLUICE_UI=0) serves the API only", async () => {
    for (const s of [await serve(["--port", "0", "--no-ui"]), await serve(["--port", "0"], { SLUICE_UI: "0" })]) {
      const root = await fetch(`${s.url}/`);
      expect(root.status).toBe(404);
      expect(root.headers.get("content-type")).toMatch(/^application\/json/);
      expect((await fetch(`${s.url}/api/auth/setup`)).status).toBe(200);
      expect(await s.stop("SIGTERM")).toBe(0);
    }
  });

  it("flags come from environment variables too, and SIGINT also stops it", async () => {
    const s = await serve([], { SLUICE_PORT: "0", SLUICE_DB: "sqlite:env.db", SLUICE_MAX_CONCURRENT_RUNS: "3" });
    const info = (await (await fetch(`${s.url}/api/system/info`)).json()) as Record<string, unknown>;
    expect(info.max_concurrent_runs).toBe(3);
    expect(fs.existsSync(path.join(s.cwd, "env.db"))).toBe(true);
    expect(await s.stop("SIGINT")).toBe(0);
  });

  it.each(serverDialects.filter((d) => d !== "sqlite"))(
    "serves on a %s database given as --db URL",
    async (dialect) => {
      const db = await createTestDatabase(dialect);
      try {
        const s = await serve(["--port", "0", "--db", db.url]);
        const created = await fetch(`${s.url}/api/pipelines`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: "on-server-db" }),
        });
        expect(created.status).toBe(201);
        const info = (await (await fetch(`${s.url}/api/system/info`)).json()) as Record<string, unknown>;
        expect(info).toMatchObject({ store: dialect, pipelines: 1 });
        expect(await s.stop("SIGTERM")).toBe(0);
      } finally {
        await db.drop();
      }
    },
  );
});
