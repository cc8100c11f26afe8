import fs from "node:fs";
import path from "node:path";
import knexFactory, { type Knex } from "knex";
import { SluiceError } from "../../errors.js";
import { parseDatabaseUrl } from "../database-url.js";
import type { Store } from "../ports.js";
import { DIALECTS } from "./dialects/index.js";
import type { Dialect } from "./dialects/dialect.js";
import { migrateLatest, releaseMigrationLock } from "./migrate-database.js";
import { createEventLogStore } from "./event-log-store.js";
import { createPipelineStore } from "./pipeline-store.js";
import { createRunStore } from "./run-store.js";
import { sqlitePipelineStore, sqliteRunStore, sqliteUserStore } from "./sqlite-hot-path.js";
import { SqliteCheckpointer } from "./sqlite-checkpointer.js";
import { SqliteStatements } from "./sqlite-statements.js";
import { createInsightStore } from "./insight-store.js";
import { createLeaseStore } from "./lease-store.js";
import { createWebhookStore } from "./webhook-store.js";
import { cachedPipelineStore, type PipelineChangeFeed } from "./cached-pipeline-store.js";
import { sqliteChangeFeed } from "./sqlite-change-feed.js";
import { createSchedulerStateStore } from "./scheduler-state-store.js";
import { sqliteSchedulerStateStore } from "./sqlite-scheduler-state.js";
import { createSystemStore } from "./system-store.js";
import { createLoginAttemptStore } from "./login-attempt-store.js";
import { createUserStore } from "./user-store.js";
import { createConnectionStore } from "./connection-store.js";
import { createVariableStore } from "./variable-store.js";

/** knex prints driver errors (with stacks) itself; they reach callers as errors instead. */
const QUIET_KNEX_LOG = { warn() {}, error() {}, deprecate() {}, debug() {} };

export interface KnexStore extends Store {
  readonly knex: Knex;
}

/**
 * Opens (and migrates) the database named by `database`: a file path, `sqlite:PATH`, `postgres://…` or `mysql://…`.
 * Fails with a one-line message when the database is unreachable, was migrated by a newer Sluice, or its migration
 * lock stays held (the message names `sluice migrate --unlock`).
 */
export async function createKnexStore(database: string): Promise<KnexStore> {
  const { knex, parsed, dialect } = await openKnex(database);
  await migrateOrClose(knex, dialect);
  const pipelines = createPipelineStore(knex);
  const runs = createRunStore(knex, dialect);
  // SQLite runs its hot statements through better-sqlite3 directly (prepared once) and checkpoints off the event loop
  const sqlite = parsed.dialect === "sqlite" ? new SqliteStatements(knex) : null;
  const read = sqlite ? sqlitePipelineStore(pipelines, sqlite) : pipelines;
  // pipelines are served from memory where the database tells of every write (MySQL: read every time)
  const pipelineChanges = dialect.pipelineChanges;
  const feed: PipelineChangeFeed | null = sqlite
    ? sqliteChangeFeed(sqlite)
    : pipelineChanges && parsed.url
      ? { listen: (onChange, onLost) => pipelineChanges.listen(parsed.url as string, onChange, onLost) }
      : null;
  let checkpointer: SqliteCheckpointer | null = null;
  let cached: Awaited<ReturnType<typeof cachedPipelineStore>> | null = null;
  try {
    if (parsed.filePath && parsed.filePath !== ":memory:") {
      checkpointer = new SqliteCheckpointer(parsed.filePath, () => {
        // SQLite checkpoints inside commits again: slower, never unbounded
        void knex.raw("pragma wal_autocheckpoint = 1000").catch(() => undefined);
      });
    }
    cached = feed ? await cachedPipelineStore(read, feed) : null;
  } catch (e) {
    await checkpointer?.close().catch(() => undefined);
    await knex.destroy().catch(() => undefined);
    throw e;
  }
  return {
    dialect: parsed.dialect,
    filePath: parsed.filePath,
    knex,
    pipelines: cached ?? read,
    runs: sqlite ? sqliteRunStore(runs, sqlite) : runs,
    system: createSystemStore(knex, dialect),
    insights: createInsightStore(knex),
    leases: createLeaseStore(knex),
    webhooks: createWebhookStore(knex),
    schedulerState: sqlite
      ? sqliteSchedulerStateStore(createSchedulerStateStore(knex), sqlite)
      : createSchedulerStateStore(knex),
    users: sqlite ? sqliteUserStore(createUserStore(knex), sqlite) : createUserStore(knex),
    connections: createConnectionStore(knex),
    variables: createVariableStore(knex),
    loginAttempts: createLoginAttemptStore(knex),
    eventLog: createEventLogStore(knex, dialect, parsed.url ?? ""),
    close: async () => {
      await cached?.close();
      await knex.destroy();
      await checkpointer?.close();
    },
  };
}

/**
 * `sluice migrate`: applies pending migrations to `database` and closes it; returns the names applied (none when
 * it was up to date).
 */
export async function migrateDatabase(database: string): Promise<string[]> {
  const { knex, dialect } = await openKnex(database);
  const applied = await migrateOrClose(knex, dialect);
  await knex.destroy();
  return applied;
}

/**
 * `sluice migrate --unlock`: frees the migration lock a crashed migration left set (knex's
 * `forceFreeMigrationsLock`); returns whether it was held. Safe only when no other process is migrating.
 */
export async function unlockMigrations(database: string): Promise<boolean> {
  const { knex } = await openKnex(database);
  try {
    return await releaseMigrationLock(knex);
  } finally {
    await knex.destroy();
  }
}

async function openKnex(database: string) {
  const parsed = parseDatabaseUrl(database);
  const dialect = DIALECTS[parsed.dialect];
  if (parsed.filePath && parsed.filePath !== ":memory:") {
    fs.mkdirSync(path.dirname(parsed.filePath), { recursive: true });
  }
  const knex = knexFactory({ ...dialect.knexConfig(parsed.filePath ?? parsed.url ?? ""), log: QUIET_KNEX_LOG });
  try {
    await knex.raw("select 1");
  } catch (e) {
    await knex.destroy().catch(() => undefined);
    throw new SluiceError("internal", `cannot open ${parsed.dialect} database: ${describeConnectError(e)}`);
  }
  return { knex, parsed, dialect };
}

/** Migrates; on failure closes the connection and throws a one-line error naming the database kind. */
async function migrateOrClose(knex: Knex, dialect: Dialect): Promise<string[]> {
  try {
    return await migrateLatest(knex, dialect);
  } catch (e) {
    await knex.destroy().catch(() => undefined);
    if (e instanceof SluiceError) throw e;
    throw new SluiceError("internal", `cannot migrate ${dialect.name} database: ${(e as Error).message}`);
  }
}

/** A connection error without credentials (driver messages can echo the URL). */
function describeConnectError(e: unknown): string {
  const err = e as { code?: string; message?: string };
  const message = (err.message ?? String(e)).replace(/\/\/[^@/\s]*@/g, "//***@");
  return err.code ? `${err.code}: ${message}` : message;
}
