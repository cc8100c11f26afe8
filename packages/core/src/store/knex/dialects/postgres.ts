import type { Knex } from "knex";
import type { Dialect } from "./dialect.js";
import { listenForNotifications } from "./postgres-listener.js";

/**
 * The NOTIFY channel of appended events (migration 009's trigger); the payload is the appending process's owner id
 * (a few dozen bytes).
 */
const EVENTS_CHANNEL = "sluice_events";
/** The NOTIFY channel of pipeline writes (migration 009's trigger); the payload is the pipeline id. */
const PIPELINES_CHANNEL = "sluice_pipelines";
/**
 * A session left idle inside a transaction this long is ended by the server: a process paused mid-batch (SIGSTOP,
 * a stalled VM) must not hold the row locks another instance needs to take its runs over.
 */
const IDLE_IN_TRANSACTION_MS = 10_000;

/** The advisory-lock key migrating processes share (advisory locks are per database). */
const MIGRATION_LOCK_KEY = "8317151707346042880"; // the bytes of "sluice", as a 64-bit number

export const postgresDialect: Dialect = {
  name: "postgres",
  supportsSkipLocked: true,
  supportsUpdateReturning: true,
  supportsWritableCte: true,
  arrayRows: true,
  namedStatements: true,
  // the ids picked once, as an array. Given `id in (pick)`, the planner may join the pick in a nested loop and run it
  // again for every pending run; each time it skips the rows this very statement has just locked and updated and
  // picks the next ones, so a claim of 3 took every pending run (all 6 of a test). The picked rows are locked and
  // were pending when locked (FOR UPDATE checks the latest version), so they are updated by primary key alone; with
  // `status = 'pending'` beside it, a planner without statistics yet (a new database) walked every pending run.
  claimedBy: (update, pick) => update.whereRaw("id = any(array(?))", [pick]),
  migrationMutex: {
    async tryLock(knex, conn) {
      const result = (await knex.raw(`select pg_try_advisory_lock(${MIGRATION_LOCK_KEY}) as ok`).connection(conn)) as {
        rows: { ok: boolean }[];
      };
      return result.rows[0]?.ok === true;
    },
    async unlock(knex, conn) {
      await knex.raw(`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`).connection(conn);
    },
  },
  pipelineChanges: {
    listen(url, onChange, onLost) {
      return listenForNotifications(
        { connectionString: url, connectionTimeoutMillis: 10_000, keepAlive: true },
        PIPELINES_CHANNEL,
        (id) => onChange(id === "" ? null : id),
        onLost,
      );
    },
  },
  eventNotifications: {
    listen(url, onNotify, onError) {
      return listenForNotifications(
        { connectionString: url, connectionTimeoutMillis: 10_000 },
        EVENTS_CHANNEL,
        onNotify,
        onError,
      );
    },
  },
  knexConfig(url) {
    return {
      client: "pg",
      // an error names the statement without its values: a batch's values are run data, and can be megabytes
      compileSqlOnError: false,
      connection: { connectionString: url, idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS },
      pool: { min: 0, max: 10 },
    };
  },
  async sizeBytes(knex: Knex) {
    const result = (await knex.raw("select pg_database_size(current_database()) as size")) as {
      rows: { size: string }[];
    };
    return Number(result.rows[0]?.size ?? 0);
  },
};
