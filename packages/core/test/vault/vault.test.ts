import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Vault, loadVault } from "../../src/vault/vault.js";
import { createSluice } from "../../src/service/create-sluice.js";
import { silentLogger } from "../../src/logger.js";
import { tempDir } from "../../../../test-support/databases.js";

const key = (byte: number) => Buffer.alloc(32, byte);

describe("vault", () => {
  it("round-trips any string, with a fresh IV each time", () => {
    const vault = new Vault(key(7), "test");
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 500 }), (s) => vault.decrypt(vault.encrypt(s)) === s),
    );
    expect(vault.encrypt("same")).not.toBe(vault.encrypt("same"));
  });

  it("refuses a tampered ciphertext and a value under another key, naming the key source", () => {
    const vault = new Vault(key(1), "/data/sluice.db.key");
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 100 }), fc.nat(), (s, at) => {
        const envelope = vault.encrypt(s);
        const raw = Buffer.from(envelope.slice(3), "base64");
        const i = at % raw.length;
        raw[i] = (raw[i] ?? 0) ^ 0x01;
        expect(() => vault.decrypt(`v1:${raw.toString("base64")}`)).toThrow(/sluice\.db\.key/);
      }),
    );
    expect(() => new Vault(key(2), "/other.key").decrypt(vault.encrypt("x"))).toThrow(
      /cannot be decrypted with the key from \/other\.key/,
    );
  });

  it("creates {db_path}.key with mode 0600 beside a SQLite database, and reuses it", () => {
    const dir = tempDir();
    const db = path.join(dir, "s.db");
    const a = loadVault({ sqliteFile: db, stateDir: dir });
    expect(a.keySource).toBe(`${db}.key`);
    expect(fs.statSync(`${db}.key`).mode & 0o777).toBe(0o600);
    const b = loadVault({ sqliteFile: db, stateDir: dir });
    expect(b.decrypt(a.encrypt("hello"))).toBe("hello");
    const env = loadVault({ sqliteFile: null, stateDir: dir, envKey: "ab".repeat(32) });
    expect(env.keySource).toBe("SLUICE_SECRET_KEY");
  });

  it("refuses to start with a wrong key when secrets are stored, naming the key file", async () => {
    const dir = tempDir();
    const db = path.join(dir, "k.db");
    const first = await createSluice({ database: db, logger: silentLogger, jwtSecret: "3".repeat(64) });
    await first.variables.upsert({ key: "token", value: "s3cret", type: "secret" });
    await first.close();
    fs.writeFileSync(`${db}.key`, `${"cd".repeat(32)}\n`);
    await expect(createSluice({ database: db, logger: silentLogger, jwtSecret: "3".repeat(64) })).rejects.toThrow(
      /k\.db\.key/,
    );
  });
});
