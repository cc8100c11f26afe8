/**
 * Each test process works in its own temporary directory. A server or `createSluice` on PostgreSQL or MariaDB
 * without a `stateDir` keeps its key file and JWT secret in the working directory (service/options.ts), and so does a
 * `sluice` process a test spawns without a `cwd`: without this, tests left `sluice.key` and `.svc-jwt-secret` in the
 * repository. Every path the tests need is absolute.
 *
 * Used twice by vitest.config.ts: as a global setup (the main process makes one directory for the whole run and
 * removes it at the end, whatever killed the test processes) and as a setup file (each test process moves into a
 * directory of its own inside it).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const RUN_DIR = "SLUICE_TEST_RUN_DIR";

/** Global setup, in vitest's main process: the run's directory, inherited by every test process it starts. */
export default function setup(): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-test-run-"));
  process.env[RUN_DIR] = dir;
  return () => fs.rmSync(dir, { recursive: true, force: true });
}

// Setup file, in a test process (once per test file): a fresh working directory inside the run's.
const runDir = process.env[RUN_DIR];
if (runDir && process.send) process.chdir(fs.mkdtempSync(path.join(runDir, "cwd-")));
