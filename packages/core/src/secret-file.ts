import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { SluiceError } from "./errors.js";

/**
 * Reads a 32-byte secret (stored as hex) from `file`, creating it with mode 0600 on first use. Creation writes a
 * private temp file and hard-links it into place, so readers never see a half-written key and instances sharing
 * the directory agree on one key. `decode` validates the file's content.
 */
export function loadOrCreateSecretFile(file: string, decode: (content: string) => Buffer): Buffer {
  try {
    return readSecretFile(file, decode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomBytes(32);
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  fs.writeFileSync(temp, `${secret.toString("hex")}\n`, { mode: 0o600, flag: "wx" });
  try {
    fs.linkSync(temp, file);
    return secret;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return readSecretFile(file, decode);
    throw e;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

function readSecretFile(file: string, decode: (content: string) => Buffer): Buffer {
  const content = fs.readFileSync(file, "utf8");
  try {
    return decode(content);
  } catch {
    throw new SluiceError("internal", `${file} does not hold a 32-byte secret (64 hex characters)`);
  }
}
