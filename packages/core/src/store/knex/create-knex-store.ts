import fs from "node:fs";
import path from "node:path";
import knexFactory, { type Knex } from "knex";
import { SluiceError } from "../../errors.js";
import { parseDatabaseUrl } from "../database-url.js";
import type { Store } from "../ports.js";
import { DIALECTS } from "./dialects/index.js";
import { MIGRATIONS, MIGRATIONS_TABLE, migrationSource } from "./migrations/index.js";
import { createPipelineStore } from "./pipeline-store.js";
import { createRunStore } from "./run-store.js";
import { createInsightStore } from "./insight-store.js";
import { createLeaseStore } from "./lease-store.js";
import { createWebhookStore } from "./webhook-store.js";
import { createSchedulerStateStore } from "./scheduler-state-store.js";
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
 * Errors another instance migrating the same fresh database at the same moment can cause; they pass once it is done.
 */
const CONCURRENT_MIGRATION = /already locked|already exists|duplicate (key|entry)|deadlock|lock wait timeout/i;

/**
 * Runs pending migrations. Several instances started together on one PostgreSQL/MySQL database race to create
 * knex's migration tables and take its lock; the losers wait and try again until the winner has finished.
 */
async function migrateLatest(knex: Knex): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await knex.migrate.latest({ migrationSource, tableName: MIGRATIONS_TABLE });
      return;
    } catch (e) {
      if (!CONCURRENT_MIGRATION.test((e as Error).message) || Date.now() > deadline) throw e;
      await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 300));
    }
  }
}

/**
 * Opens (and migrates) the database named by `database`: a file path, `sqlite:PATH`, `postgres://…` or `mysql://…`.
 * Fails with a one-line message when the database is unreachable or was migrated by a newer Sluice.
 */
export async function createKnexStore(database: string): Promise<KnexStore> {
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
  try {
    await refuseNewerSchema(knex);
    await migrateLatest(knex);
  } catch (e) {
    await knex.destroy().catch(() => undefined);
    if (e instanceof SluiceError) throw e;
    throw new SluiceError("internal", `cannot migrate ${parsed.dialect} database: ${(e as Error).message}`);
  }
  return {
    dialect: parsed.dialect,
    filePath: parsed.filePath,
    knex,
    pipelines: createPipelineStore(knex),
    runs: createRunStore(knex, dialect),
    system: createSystemStore(knex, dialect),
    insights: createInsightStore(knex),
    leases: createLeaseStore(knex),
    webhooks: createWebhookStore(knex),
    schedulerState: createSchedulerStateStore(knex),
    users: createUserStore(knex),
    connections: createConnectionStore(knex),
    variables: createVariableStore(knex),
    loginAttempts: createLoginAttemptStore(knex),
    close: () => knex.destroy(),
  };
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

/** A connection error without credentials (driver messages can echo the URL). */
function describeConnectError(e: unknown): string {
  const err = e as { code?: string; message?: string };
  const message = (err.message ?? String(e)).replace(/\/\/[^@/\s]*@/g, "//***@");
  return err.code ? `${err.code}: ${message}` : message;
}
