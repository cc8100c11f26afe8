import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { SluiceError } from "../errors.js";

export const JWT_SECRET_FILE = ".svc-jwt-secret";
const SECRET_BYTES = 32;

/**
 * Decodes `SVC_JWT_SECRET`: 64 hex characters, exactly 32 characters used as-is (UTF-8 bytes), or base64 /
 * base64url that decodes to 32 bytes. Anything else is refused rather than silently weakened.
 */
export function decodeJwtSecret(value: string): Buffer {
  const trimmed = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, "hex");
  if (Buffer.byteLength(trimmed, "utf8") === SECRET_BYTES) return Buffer.from(trimmed, "utf8");
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    const decoded = Buffer.from(trimmed, "base64");
    if (decoded.length === SECRET_BYTES) return decoded;
  }
  throw new SluiceError(
    "internal",
    "SVC_JWT_SECRET must be 32 bytes: 64 hex characters, 32 plain characters, or base64 of 32 bytes",
  );
}

/**
 * The HS256 signing key: from `envValue` when set, else the file `.svc-jwt-secret` in `stateDir`, created with
 * mode 0600 on first run. Creation is exclusive, so instances sharing the directory agree on one key.
 */
export function loadJwtSecret(stateDir: string, envValue: string | undefined): Buffer {
  if (envValue !== undefined && envValue.trim() !== "") return decodeJwtSecret(envValue);
  const file = path.join(stateDir, JWT_SECRET_FILE);
  try {
    return readSecretFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  fs.mkdirSync(stateDir, { recursive: true });
  const secret = randomBytes(SECRET_BYTES);
  // Written to a private temp file and hard-linked into place: readers never see a half-written key.
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  fs.writeFileSync(temp, `${secret.toString("hex")}\n`, { mode: 0o600, flag: "wx" });
  try {
    fs.linkSync(temp, file);
    return secret;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return readSecretFile(file);
    throw e;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

function readSecretFile(file: string): Buffer {
  const content = fs.readFileSync(file, "utf8");
  try {
    return decodeJwtSecret(content);
  } catch {
    throw new SluiceError("internal", `${file} does not hold a 32-byte secret; delete it to generate a new one`);
  }
}
