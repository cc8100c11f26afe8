import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { JWT_SECRET_FILE, decodeJwtSecret, loadJwtSecret } from "../../src/auth/jwt-secret.js";
import { createSluice, silentLogger } from "../../src/index.js";
import { tempDir } from "../../../../test-support/databases.js";

const dirs: string[] = [];
const dir = () => {
  const d = tempDir();
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("JWT secret", () => {
  it("accepts 64 hex characters, 32 plain characters, or base64 of 32 bytes", () => {
    const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
    expect(decodeJwtSecret(bytes.toString("hex"))).toEqual(bytes);
    expect(decodeJwtSecret(bytes.toString("base64"))).toEqual(bytes);
    expect(decodeJwtSecret(bytes.toString("base64url"))).toEqual(bytes);
    expect(decodeJwtSecret("abcdefghijklmnopqrstuvwxyz012345")).toEqual(
      Buffer.from("abcdefghijklmnopqrstuvwxyz012345"),
    );
  });

  it("refuses secrets that are not 32 bytes, without echoing them", () => {
    for (const bad of ["short", "x".repeat(31), "x".repeat(33), Buffer.alloc(16).toString("base64")]) {
      expect(() => decodeJwtSecret(bad)).toThrow(/32 bytes/);
      try {
        decodeJwtSecret(bad);
      } catch (e) {
        expect((e as Error).message).not.toContain(bad);
      }
    }
  });

  it("generates .svc-jwt-secret with mode 0600 once, and reuses it", () => {
    const d = dir();
    const first = loadJwtSecret(d, undefined);
    const file = path.join(d, JWT_SECRET_FILE);
    expect(first.length).toBe(32);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(loadJwtSecret(d, undefined)).toEqual(first);
    expect(fs.readdirSync(d)).toEqual([JWT_SECRET_FILE]);
  });

  it("prefers the environment value and then writes no file", () => {
    const d = dir();
    const secret = loadJwtSecret(d, "f".repeat(64));
    expect(secret).toEqual(Buffer.alloc(32, 0xff));
    expect(fs.existsSync(path.join(d, JWT_SECRET_FILE))).toBe(false);
  });

  it("createSluice puts the key file beside a SQLite database and fails clearly on a bad SVC_JWT_SECRET", async () => {
    const d = dir();
    const sluice = await createSluice({ database: `sqlite:${path.join(d, "x.db")}`, logger: silentLogger });
    await sluice.close();
    expect(fs.existsSync(path.join(d, JWT_SECRET_FILE))).toBe(true);
    await expect(createSluice({ database: `sqlite:${path.join(d, "y.db")}`, jwtSecret: "too short" })).rejects.toThrow(
      /SVC_JWT_SECRET/,
    );
  });
});
