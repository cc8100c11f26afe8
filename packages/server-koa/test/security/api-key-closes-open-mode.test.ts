/**
 * `sluice serve --api-key …` on a fresh database (issue 14): it used to answer anonymous requests as superadmin,
 * on 0.0.0.0. Spawns the built CLI (`npm run build` first) as an operator would and attacks it anonymously; also
 * a malformed key, which must stop the server rather than leave it running without one.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { generateApiKey } from "../../../core/src/index.js";
import { tempDir } from "../../../../test-support/databases.js";
import { PASSWORD } from "../auth/users.js";

const BIN = fileURLToPath(new URL("../../bin/sluice.js", import.meta.url));
const built = fs.existsSync(fileURLToPath(new URL("../../dist/cli.js", import.meta.url)));
const { SVC_JWT_SECRET: _s, SLUICE_API_KEY: _k, ...baseEnv } = process.env;

interface Served {
  child: ChildProcess;
  base: string;
  stderr: () => string;
}

/** Starts `sluice serve` on 127.0.0.1, port 0; resolves with its URL once it listens. */
async function serve(dir: string, args: string[], env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(
    process.execPath,
    [BIN, "serve", "--host", "127.0.0.1", "--port", "0", "--db", path.join(dir, "sluice.db"), ...args],
    {
      env: { ...baseEnv, SLUICE_LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let err = "";
  child.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const base = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const url = out.match(/listening on (http:\/\/\S+?)\/api/)?.[1];
      if (url) resolve(url);
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${out} ${err}`)));
  });
  return { child, base, stderr: () => err };
}

async function stop(served: Served | undefined): Promise<void> {
  if (!served || served.child.exitCode !== null) return;
  const exited = new Promise((resolve) => served.child.once("exit", resolve));
  served.child.kill("SIGTERM");
  await exited;
}

describe.runIf(built)("serve with an API key and no users", () => {
  const key = generateApiKey();
  let dir = "";
  let served: Served;

  beforeAll(async () => {
    dir = tempDir("sluice-api-key-");
    served = await serve(dir, ["--api-key", key]);
  });
  afterAll(async () => {
    await stop(served);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("anonymous GET /api/pipelines → 401, and nothing else but the public routes answers", async () => {
    const { base } = served;
    expect((await fetch(`${base}/api/pipelines`)).status).toBe(401);
    expect((await fetch(`${base}/api/auth/me`)).status).toBe(401);
    expect((await fetch(`${base}/api/connections`)).status).toBe(401);
    expect(
      (
        await fetch(`${base}/api/pipelines`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: '{"name":"x"}',
        })
      ).status,
    ).toBe(401);
    expect((await fetch(`${base}/api/pipelines`, { headers: { authorization: "Bearer garbage" } })).status).toBe(401);
    // public routes stay public
    expect((await fetch(`${base}/health`)).status).toBe(200);
    expect(await (await fetch(`${base}/api/auth/setup`)).json()).toEqual({ needs_setup: true });
  });

  it("an anonymous WebSocket is refused", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`${served.base.replace("http", "ws")}/ws`);
      ws.once("open", () => {
        ws.close();
        resolve(101);
      });
      ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.once("error", reject);
    });
    expect(status).toBe(401);
  });

  it("anonymous creation of the first user is refused; with the key it is created, as admin", async () => {
    const body = JSON.stringify({ username: "mallory", password: PASSWORD, role: "superadmin" });
    const anonymous = await fetch(`${served.base}/api/auth/users`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(anonymous.status).toBe(401);
    expect(await (await fetch(`${served.base}/api/auth/setup`)).json()).toEqual({ needs_setup: true });

    const withKey = await fetch(`${served.base}/api/auth/users`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ username: "owner", password: PASSWORD }),
    });
    expect(withKey.status).toBe(201);
    expect(await withKey.json()).toMatchObject({ username: "owner", role: "admin" });
    const loggedIn = await fetch(`${served.base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "owner", password: PASSWORD }),
    });
    expect(loggedIn.status).toBe(200);
  });

  it("logs no open-mode warning", () => {
    expect(served.stderr()).not.toContain("open mode");
  });
});

describe.runIf(built)("SLUICE_API_KEY instead of --api-key (kept out of ps)", () => {
  it("closes open mode the same way", async () => {
    const dir = tempDir("sluice-api-key-env-");
    const key = generateApiKey();
    const served = await serve(dir, [], { SLUICE_API_KEY: key });
    try {
      expect((await fetch(`${served.base}/api/pipelines`)).status).toBe(401);
      expect((await fetch(`${served.base}/api/pipelines`, { headers: { "x-api-key": key } })).status).toBe(200);
    } finally {
      await stop(served);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.runIf(built)("a malformed key stops the server at start", () => {
  const attempts: [string, string[], Record<string, string>][] = [
    ["a short --api-key", ["--api-key", "svc_0123abcd"], {}],
    ["an --api-key of upper-case hex", ["--api-key", `svc_${"AB".repeat(24)}`], {}],
    ["a key without the prefix", ["--api-key", "0123456789abcdef".repeat(3)], {}],
    ["one bad key among good ones", ["--api-key", `${generateApiKey()},hunter2-password`], {}],
    ["an empty --api-key", ["--api-key", ""], {}],
    ["a malformed SLUICE_API_KEY", [], { SLUICE_API_KEY: "my-secret-key" }],
  ];
  for (const [what, args, env] of attempts) {
    it(`${what}: exit status non-zero, a clear message, the value not echoed`, () => {
      const dir = tempDir("sluice-bad-key-");
      try {
        const result = spawnSync(
          process.execPath,
          [BIN, "serve", "--host", "127.0.0.1", "--port", "0", "--db", path.join(dir, "sluice.db"), ...args],
          {
            env: { ...baseEnv, ...env },
            encoding: "utf8",
            timeout: 30_000,
          },
        );
        expect(result.status).not.toBe(0);
        expect(result.status).not.toBeNull();
        expect(result.stdout).not.toContain("listening");
        expect(result.stderr).toMatch(/(--api-key|SLUICE_API_KEY).*(svc_|empty)/);
        for (const value of [...args.slice(1), ...Object.values(env)]) {
          for (const part of value.split(",")) if (part.length > 6) expect(result.stderr).not.toContain(part);
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe.runIf(built)("open mode (no key, no user)", () => {
  it("warns at start, naming the bound address", async () => {
    const dir = tempDir("sluice-open-");
    const served = await serve(dir, []);
    try {
      const until = Date.now() + 10_000;
      while (!served.stderr().includes("open mode") && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(served.stderr()).toContain(
        `anyone who can reach ${served.base.replace("localhost", "127.0.0.1")} is admin`,
      );
    } finally {
      await stop(served);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
