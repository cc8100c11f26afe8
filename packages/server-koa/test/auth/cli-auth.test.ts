/** Spawns the built CLI (`npm run build` first): API keys and CORS from the command line. */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../../test-support/databases.js";

const BIN = fileURLToPath(new URL("../../bin/sluice.js", import.meta.url));
const built = fs.existsSync(fileURLToPath(new URL("../../dist/cli.js", import.meta.url)));

function generateKey(): string {
  const out = spawnSync(process.execPath, [BIN, "generate-key"], { encoding: "utf8" });
  const key = out.stdout.match(/svc_[0-9a-f]{48}/)?.[0];
  if (!key) throw new Error(`generate-key printed no key: ${out.stdout} ${out.stderr}`);
  return key;
}

describe.runIf(built)("sluice serve: --api-key, --cors-origin, SVC_JWT_SECRET", () => {
  let child: ChildProcess;
  let base = "";
  let dir = "";
  const keys: string[] = [];

  beforeAll(async () => {
    dir = tempDir();
    keys.push(generateKey(), generateKey(), generateKey());
    const { SVC_JWT_SECRET: _ignored, ...env } = process.env;
    child = spawn(
      process.execPath,
      [
        BIN,
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--db",
        path.join(dir, "cli.db"),
        "--api-key",
        `${keys[0]},${keys[1]}`,
        "--api-key",
        keys[2] as string,
        "--cors-origin",
        "http://localhost:5173",
      ],
      { env: { ...env, SLUICE_LOG_LEVEL: "error" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    base = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const url = out.match(/listening on (http:\/\/\S+?)\/api/)?.[1];
        if (url) resolve(url);
      });
      child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
    });
    // a server with a key is never open: the first user is created with the key
    await fetch(`${base}/api/auth/users`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": keys[0] as string },
      body: JSON.stringify({ username: "admin", password: "correct horse battery" }),
    });
  });
  afterAll(async () => {
    child?.kill("SIGTERM");
    await new Promise((resolve) => (child?.exitCode !== null ? resolve(null) : child.once("exit", resolve)));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("accepts every key given, comma-separated or repeated, and refuses others", async () => {
    for (const key of keys)
      expect((await fetch(`${base}/api/auth/users`, { headers: { "x-api-key": key } })).status).toBe(200);
    expect((await fetch(`${base}/api/auth/users`, { headers: { authorization: `Bearer ${keys[2]}` } })).status).toBe(
      200,
    );
    expect((await fetch(`${base}/api/auth/users`, { headers: { "x-api-key": generateKey() } })).status).toBe(401);
    expect((await fetch(`${base}/api/auth/users`)).status).toBe(401);
  });

  it("answers CORS for the configured origin only", async () => {
    const allowed = await fetch(`${base}/api/auth/setup`, { headers: { origin: "http://localhost:5173" } });
    expect(allowed.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    const other = await fetch(`${base}/api/auth/setup`, { headers: { origin: "http://localhost:9999" } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("wrote .svc-jwt-secret beside the database with mode 0600", () => {
    const file = path.join(dir, ".svc-jwt-secret");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });
});
