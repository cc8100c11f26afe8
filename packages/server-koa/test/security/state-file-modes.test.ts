/**
 * File modes on disk (issue 14): the server's state files are private (0600) from the first start, a looser mode
 * found at start is tightened with a warning, and sink_file neither loosens an existing file nor creates one that
 * others can read.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSluice, type Logger, type Sluice, storeOf } from "../../../core/src/index.js";
import { tempDir } from "../../../../test-support/databases.js";

const mode = (file: string) => fs.statSync(file).mode & 0o777;
const dirs: string[] = [];
const open: Sluice[] = [];

afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, warn: (m) => void warnings.push(m), error() {} };
}

async function start(dir: string, logger: Logger = recordingLogger()): Promise<Sluice> {
  const sluice = await createSluice({ database: path.join(dir, "sluice.db"), logger });
  open.push(sluice);
  await sluice.start();
  return sluice;
}

describe("state files on disk", () => {
  it("a fresh data directory gets the database, its WAL, the key and the JWT secret as 0600, and a files/ root", async () => {
    const dir = tempDir("sluice-modes-");
    dirs.push(dir);
    const previous = process.umask(0o022);
    try {
      const sluice = await start(dir);
      await storeOf(sluice).knex.raw("select count(*) from users");
    } finally {
      process.umask(previous);
    }
    for (const file of ["sluice.db", "sluice.db-wal", "sluice.db-shm", "sluice.db.key", ".svc-jwt-secret"]) {
      expect([file, mode(path.join(dir, file))]).toEqual([file, 0o600]);
    }
    expect(fs.statSync(path.join(dir, "files")).isDirectory()).toBe(true);
  });

  it("tightens a key file, JWT secret and database left 0644 by an older version, with a warning naming each", async () => {
    const dir = tempDir("sluice-modes-");
    dirs.push(dir);
    await start(dir);
    await open.pop()!.close();
    for (const file of ["sluice.db", "sluice.db.key", ".svc-jwt-secret"]) fs.chmodSync(path.join(dir, file), 0o644);
    const key = fs.readFileSync(path.join(dir, "sluice.db.key"), "utf8");
    const logger = recordingLogger();
    await start(dir, logger);
    for (const file of ["sluice.db", "sluice.db.key", ".svc-jwt-secret"]) {
      expect([file, mode(path.join(dir, file))]).toEqual([file, 0o600]);
      expect(logger.warnings.some((w) => w.includes(path.join(dir, file)) && w.includes("0644"))).toBe(true);
    }
    expect(fs.readFileSync(path.join(dir, "sluice.db.key"), "utf8")).toBe(key);
  });
});
