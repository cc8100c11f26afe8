import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import path from "node:path";
import { SluiceError } from "../errors.js";
import { loadOrCreateSecretFile } from "../secret-file.js";

const PREFIX = "v1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Decodes a 32-byte key given as 64 hex characters or base64. */
export function decodeSecretKey(value: string): Buffer {
  const v = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(v)) return Buffer.from(v, "hex");
  const b = Buffer.from(v, "base64");
  if (b.length === 32 && /^[A-Za-z0-9+/_-]+={0,2}$/.test(v)) return b;
  throw new SluiceError("internal", "the secrets key must be 32 bytes: 64 hex characters or base64");
}

/**
 * AES-256-GCM for secrets at rest (connection password and extra, secret variables): a fresh random 12-byte IV
 * per value, authenticated, stored as `v1:` + base64(iv | tag | ciphertext). A value encrypted under another key,
 * or tampered with, is refused with an error naming where the key comes from — never returned as garbage.
 */
export class Vault {
  constructor(
    private readonly key: Buffer,
    /** Where the key comes from, for error messages (a file path or `SLUICE_SECRET_KEY`). */
    readonly keySource: string,
  ) {
    if (key.length !== 32) throw new SluiceError("internal", "the secrets key must be 32 bytes");
  }

  encrypt(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64");
  }

  decrypt(envelope: string): string {
    if (!envelope.startsWith(PREFIX)) throw this.refused();
    const raw = Buffer.from(envelope.slice(PREFIX.length), "base64");
    if (raw.length < IV_BYTES + TAG_BYTES) throw this.refused();
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
    } catch {
      throw this.refused();
    }
  }

  private refused(): SluiceError {
    return new SluiceError(
      "internal",
      `a stored secret cannot be decrypted with the key from ${this.keySource}: the key is wrong or missing (restore the original key file or SLUICE_SECRET_KEY), or the value was tampered with`,
    );
  }
}

export const SECRET_KEY_ENV = "SLUICE_SECRET_KEY";

/**
 * The secrets key: `SLUICE_SECRET_KEY` when set (share it between instances on PostgreSQL/MySQL); else the file
 * `{db_path}.key` beside a SQLite database (a random per-process key for `:memory:`), or `sluice.key` in the state
 * directory for server databases — created
 * with mode 0600 on first run.
 */
export function loadVault(options: {
  sqliteFile: string | null;
  stateDir: string;
  envKey?: string | undefined;
}): Vault {
  if (options.envKey !== undefined && options.envKey.trim() !== "")
    return new Vault(decodeSecretKey(options.envKey), SECRET_KEY_ENV);
  const file = secretKeyFile(options);
  // an in-memory database keeps nothing across restarts, so neither does its key
  if (file === null) return new Vault(randomBytes(32), "an ephemeral key (in-memory database)");
  return new Vault(loadOrCreateSecretFile(file, decodeSecretKey), file);
}

/**
 * Where the secrets key file is (or would be): `{db_path}.key`, `sluice.key` in the state directory, none for
 * `:memory:`.
 */
export function secretKeyFile(options: { sqliteFile: string | null; stateDir: string }): string | null {
  if (options.sqliteFile === ":memory:") return null;
  return options.sqliteFile ? `${path.resolve(options.sqliteFile)}.key` : path.join(options.stateDir, "sluice.key");
}
