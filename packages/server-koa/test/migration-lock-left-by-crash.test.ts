import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createKnexStore } from "../../core/src/store/knex/create-knex-store.js";
import { createTestDatabase, tempDir, testDialects } from "../../../test-support/databases.js";

/** The built bin, as an operator runs it (`npm run build -w @sluice/server-koa` first). */
const BIN = fileURLToPath(new URL("../bin/sluice.js", import.meta.url));
const dialects = await testDialects();
const children: ReturnType<typeof spawn>[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

const sluice = (args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { cwd: tempDir(), encoding: "utf8", timeout: 30_000 });

/** Starts `sluice serve`; resolves with how it ended: listening (then stopped) or exited with its stderr. */
function startServe(db: string): Promise<{ listening: boolean; code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, "serve", "--host", "127.0.0.1", "--port", "0", "--no-ui", "--db", db], {
    cwd: tempDir(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => {
    child.stdout.on("data", (c: Buffer) => {
      if (!/listening on/.test(c.toString())) return;
      child.removeAllListeners("exit");
      child.once("exit", () => resolve({ listening: true, code: null, stderr }));
      child.kill("SIGTERM");
    });
    child.once("exit", (code) => resolve({ listening: false, code, stderr }));
  });
}

/*
 * A migration killed mid-way leaves knex's lock row set. Before, every later start retried for 60 s and failed with
 * knex's bare "Migration table is already locked". Now a start gives up after a bounded wait with an error that
 * names `sluice migrate --unlock`, and that command frees the lock.
 */
describe("a migration lock left by a crashed migration", () => {
  it.each(dialects)(
    "%s: start fails within a bounded time naming 'sluice migrate --unlock', which frees it; then start works",
    async (dialect) => {
      const db = await createTestDatabase(dialect);
      try {
        const migrated = sluice(["migrate", "--db", db.url]);
        expect(migrated.stderr).toBe("");
        expect(migrated.stdout).toMatch(/^applied \d+ migration\(s\): 001-initial-schema/);
        expect(sluice(["migrate", "--db", db.url]).stdout).toContain("up to date");

        const store = await createKnexStore(db.url);
        await store.knex("sluice_migrations_lock").update({ is_locked: 1 });
        await store.close();

        const started = Date.now();
        const locked = await startServe(db.url);
        const tookMs = Date.now() - started;
        console.log(`${dialect}: start with a held migration lock failed after ${tookMs} ms`);
        expect(locked.listening).toBe(false);
        expect(locked.code).toBe(1);
        const message = locked.stderr.trim().split("\n").at(-1) ?? "";
        expect(message).toMatch(/^sluice: cannot migrate \w+ database: the migration lock .* is held/);
        expect(message).toContain("sluice migrate --unlock --db");
        expect(tookMs).toBeLessThan(20_000);

        const unlocked = sluice(["migrate", "--unlock", "--db", db.url]);
        expect(unlocked.status).toBe(0);
        expect(unlocked.stdout).toContain("released the migration lock");
        expect(sluice(["migrate", "--unlock", "--db", db.url]).stdout).toContain("was not held");

        expect(await startServe(db.url)).toMatchObject({ listening: true });
      } finally {
        await db.drop();
      }
    },
    60_000,
  );
});
