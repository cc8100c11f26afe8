import type { Knex } from "knex";
import { SluiceError } from "../../errors.js";
import type { Dialect } from "./dialects/dialect.js";
import { MIGRATIONS, MIGRATIONS_TABLE, migrationSource } from "./migrations/index.js";

/** knex's lock table beside `sluice_migrations`: one row, `is_locked` 1 while a process migrates. */
export const MIGRATIONS_LOCK_TABLE = `${MIGRATIONS_TABLE}_lock`;

/**
 * How long a start waits for a migration lock another process holds. knex has no wait of its own (taking a held lock
 * fails at once) and no way to tell a live holder from a crashed one. Migrations run in one transaction, so on
 * PostgreSQL a second instance blocks on the lock row until the first commits and never sees it held; on MySQL (DDL
 * commits implicitly) it sees the lock for as long as the first migrates, a few seconds. Longer than that, the
 * lock is most likely left by a crashed process — once the database has a schema. On a fresh database the first
 * migration creates every table and may take longer on a loaded machine, so there a start waits
 * {@link FRESH_DATABASE_LOCK_WAIT_MS}.
 */
export const MIGRATION_LOCK_WAIT_MS = 10_000;
export const FRESH_DATABASE_LOCK_WAIT_MS = 60_000;

/** Racing an instance without the migration mutex (an older Sluice) to create knex's tables; passes once it is done. */
const CONCURRENT_CREATE = /already exists|duplicate (key|entry)|deadlock|lock wait timeout/i;
const CONCURRENT_CREATE_WAIT_MS = 60_000;

const isLockHeld = (e: unknown) => (e as Error).name === "MigrationLocked" || /already locked/i.test(String(e));

/**
 * Runs pending migrations and returns their names. Several instances started together on one PostgreSQL/MySQL
 * database take turns through the dialect's migration mutex: knex's own table creation is not safe against a
 * concurrent one (two processes can each insert the lock row, after which knex finds its lock taken forever).
 */
export async function migrateLatest(knex: Knex, dialect: Dialect): Promise<string[]> {
  await refuseNewerSchema(knex);
  return withMigrationMutex(knex, dialect, async () => {
    await repairDuplicateLockRows(knex);
    return migrateUnderKnexLock(knex);
  });
}

/** Runs `migrate` holding the dialect's migration mutex, waiting for it at most {@link FRESH_DATABASE_LOCK_WAIT_MS}. */
async function withMigrationMutex<T>(knex: Knex, dialect: Dialect, migrate: () => Promise<T>): Promise<T> {
  const mutex = dialect.migrationMutex;
  if (!mutex) return migrate();
  const conn: unknown = await knex.client.acquireConnection();
  try {
    const started = Date.now();
    while (!(await mutex.tryLock(knex, conn))) {
      const waited = Date.now() - started;
      if (waited > FRESH_DATABASE_LOCK_WAIT_MS) {
        throw new Error(
          `another Sluice instance has been migrating this database for over ${Math.round(waited / 1000)} s; ` +
            `start again once it is up`,
        );
      }
      await pause();
    }
    try {
      return await migrate();
    } finally {
      await mutex.unlock(knex, conn).catch(() => undefined);
    }
  } finally {
    await knex.client.releaseConnection(conn);
  }
}

/**
 * Takes knex's lock and migrates. A lock already held (a migration that crashed on MySQL, whose DDL commits as it
 * goes, or an older Sluice migrating without the mutex) is waited for at most {@link MIGRATION_LOCK_WAIT_MS} once the
 * database has a schema; then the error names the way out.
 */
async function migrateUnderKnexLock(knex: Knex): Promise<string[]> {
  const started = Date.now();
  for (;;) {
    try {
      const [, applied] = (await knex.migrate.latest({ migrationSource, tableName: MIGRATIONS_TABLE })) as [
        number,
        string[],
      ];
      return applied;
    } catch (e) {
      const waited = Date.now() - started;
      if (isLockHeld(e)) {
        const limit = (await hasAppliedMigrations(knex)) ? MIGRATION_LOCK_WAIT_MS : FRESH_DATABASE_LOCK_WAIT_MS;
        if (waited > limit) throw lockHeldError(waited);
      } else if (!CONCURRENT_CREATE.test((e as Error).message) || waited > CONCURRENT_CREATE_WAIT_MS) {
        throw e;
      }
      await pause();
    }
  }
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 300));

/**
 * knex keeps one row in its lock table and treats any other count as "locked". Two processes that created the table
 * at once (Sluice before the migration mutex) can each have inserted one; with the mutex held, keep the first.
 */
async function repairDuplicateLockRows(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable(MIGRATIONS_LOCK_TABLE))) return;
  const rows = (await knex(MIGRATIONS_LOCK_TABLE).select("index").orderBy("index")) as { index: number }[];
  if (rows.length > 1) await knex(MIGRATIONS_LOCK_TABLE).where("index", ">", rows[0]!.index).delete();
}

/** A plain error: the caller prefixes it with the database kind, as any other migration failure. */
function lockHeldError(waitedMs: number): Error {
  return new Error(
    `the migration lock (table ${MIGRATIONS_LOCK_TABLE}) is held and was not released within ` +
      `${Math.round(waitedMs / 1000)} s; if no other Sluice instance is migrating this database (a crashed migration ` +
      `leaves the lock set), free it with 'sluice migrate --unlock --db …' (the same database)`,
  );
}

/** Whether a migration was ever completed here (false on a fresh database, whose first migration may be running). */
async function hasAppliedMigrations(knex: Knex): Promise<boolean> {
  if (!(await knex.schema.hasTable(MIGRATIONS_TABLE))) return false;
  return (await knex(MIGRATIONS_TABLE).first()) !== undefined;
}

/** Whether knex's migration lock is set (false when its table does not exist yet). */
export async function migrationLockHeld(knex: Knex): Promise<boolean> {
  if (!(await knex.schema.hasTable(MIGRATIONS_LOCK_TABLE))) return false;
  const row = (await knex(MIGRATIONS_LOCK_TABLE).where("is_locked", 1).first()) as object | undefined;
  return row !== undefined;
}

/** Releases knex's migration lock; returns whether it was held. */
export async function releaseMigrationLock(knex: Knex): Promise<boolean> {
  const held = await migrationLockHeld(knex);
  await knex.migrate.forceFreeMigrationsLock({ migrationSource, tableName: MIGRATIONS_TABLE });
  return held;
}

async function refuseNewerSchema(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable(MIGRATIONS_TABLE))) return;
  const rows = (await knex(MIGRATIONS_TABLE).select("name")) as { name: string }[];
  const known = new Set(MIGRATIONS.map(([name]) => name));
  const unknown = rows.map((r) => r.name).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new SluiceError(
      "internal",
      `the database was migrated by a newer Sluice (unknown migrations: ${unknown.join(", ")}); upgrade Sluice to open it`,
    );
  }
}
