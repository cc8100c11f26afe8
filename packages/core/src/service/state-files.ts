import fs from "node:fs";
import path from "node:path";
import { jwtSecretFile } from "../auth/jwt-secret.js";
import type { Logger } from "../logger.js";
import { secretKeyFile } from "../vault/vault.js";

/** Files SQLite keeps beside a database while it is open (WAL mode) or in a transaction (rollback journal). */
const SQLITE_SIDE_FILES = ["-wal", "-shm", "-journal"];
const PRIVATE = 0o600;

/**
 * The server's own files (docs/security.md): the SQLite store and its side files, the secrets key file and the JWT
 * secret file — listed whether or not they exist yet (a key given by environment variable still has its file path
 * refused, so nobody can plant a key there for the next start).
 */
export function stateFilesOf(sqliteFile: string | null, stateDir: string): string[] {
  const files: string[] = [];
  if (sqliteFile && sqliteFile !== ":memory:") {
    const db = path.resolve(sqliteFile);
    files.push(db, ...SQLITE_SIDE_FILES.map((suffix) => db + suffix));
  }
  const key = secretKeyFile({ sqliteFile, stateDir });
  if (key) files.push(key);
  files.push(jwtSecretFile(stateDir));
  return files;
}

/**
 * Makes the state files private before anything opens them: a missing SQLite store is created empty with mode
 * 0600 (SQLite gives its WAL and shared-memory files the database file's mode), and an existing state file that
 * group or others may read is tightened to 0600 with a warning. The key and JWT secret files are created 0600 by
 * `loadOrCreateSecretFile`.
 */
export function secureStateFiles(stateFiles: readonly string[], sqliteFile: string | null, logger: Logger): void {
  if (sqliteFile && sqliteFile !== ":memory:") {
    fs.mkdirSync(path.dirname(sqliteFile), { recursive: true });
    try {
      fs.closeSync(fs.openSync(sqliteFile, "wx", PRIVATE));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
  for (const file of stateFiles) {
    let mode: number;
    try {
      mode = fs.statSync(file).mode & 0o777;
    } catch {
      continue;
    }
    if ((mode & 0o077) === 0) continue;
    const was = mode.toString(8).padStart(4, "0");
    try {
      fs.chmodSync(file, PRIVATE);
      logger.warn(`state file ${file} was readable beyond its owner (mode ${was}); tightened to 0600`, { file });
    } catch (e) {
      logger.warn(`state file ${file} has mode ${was} and cannot be made 0600: ${(e as Error).message}`, { file });
    }
  }
}
