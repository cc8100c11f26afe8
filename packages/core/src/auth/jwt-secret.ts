import path from "node:path";
import { SluiceError } from "../errors.js";
import { loadOrCreateSecretFile } from "../secret-file.js";

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
  return loadOrCreateSecretFile(jwtSecretFile(stateDir), decodeJwtSecret);
}

export const jwtSecretFile = (stateDir: string): string => path.join(stateDir, JWT_SECRET_FILE);
