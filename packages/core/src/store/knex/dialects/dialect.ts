import type { Knex } from "knex";
import type { DialectName } from "../../ports.js";

/** Everything that differs between the databases lives behind this interface (one file per dialect). */
export interface Dialect {
  readonly name: DialectName;
  /** knex configuration for a connection target (file path or URL). */
  knexConfig(target: string): Knex.Config;
  /** Bytes the database occupies. */
  sizeBytes(knex: Knex): Promise<number>;
  /** Whether `SELECT … FOR UPDATE SKIP LOCKED` can be used to claim rows. */
  readonly supportsSkipLocked: boolean;
  /** Whether `UPDATE … RETURNING` exists (a batch's transitions and a heartbeat read back in one statement). */
  readonly supportsUpdateReturning: boolean;
  /**
   * How a claim's `UPDATE runs … RETURNING` names the runs `pick` chose (`SELECT id … ORDER BY … LIMIT n`, locked with
   * SKIP LOCKED where it exists): the claim in one statement. Absent where `UPDATE … RETURNING` does not exist (the
   * claim is then a transaction: the pick, then an update of the ids it read).
   */
  readonly claimedBy?: (update: Knex.QueryBuilder, pick: Knex.QueryBuilder) => Knex.QueryBuilder;
  /** Whether `INSERT`/`UPDATE` may be parts of one statement (`WITH p AS (INSERT …) …`): a batch's writes combined. */
  readonly supportsWritableCte: boolean;
  /** Whether a batch's rows go as one JSON parameter per statement (`jsonb_array_elements`: array-rows.ts). */
  readonly arrayRows: boolean;
  /**
   * Whether the statements every run executes (the claim, a run-state batch in one statement) go to the driver as
   * named prepared statements, compiled by knex once (PostgreSQL: pg-statements.ts) rather than on every call.
   */
  readonly namedStatements?: boolean;
  /**
   * Wakes other processes when events are appended (PostgreSQL: NOTIFY from a trigger on `run_events`, delivered at
   * commit, migration 009); `listen` keeps a connection of its own, reconnecting by itself. Absent where the event
   * log is polled instead.
   */
  readonly eventNotifications?: {
    listen(
      target: string,
      onNotify: (origin: string) => void,
      onError: (e: unknown) => void,
    ): Promise<{ close(): Promise<void> }>;
  };
  /**
   * Where the database announces every write of a pipeline row (PostgreSQL: NOTIFY from a trigger, migration 009), so
   * instances can keep pipelines in memory (cached-pipeline-store.ts). Absent: every read goes to the database.
   */
  readonly pipelineChanges?: {
    listen(
      target: string,
      onChange: (pipelineId: string | null) => void,
      onLost: (e: unknown) => void,
    ): Promise<{ close(): Promise<void> }>;
  };
  /**
   * The database-wide lock that lets one process at a time migrate, taken on the session `conn` without waiting:
   * false while another session holds it. A session that ends (a crashed process) frees it, unlike knex's lock row.
   * Absent where one process owns the database (SQLite).
   */
  readonly migrationMutex?: {
    tryLock(knex: Knex, conn: unknown): Promise<boolean>;
    unlock(knex: Knex, conn: unknown): Promise<void>;
  };
}
