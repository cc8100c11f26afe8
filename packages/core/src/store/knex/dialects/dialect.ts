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
  /** Whether `UPDATE … RETURNING` exists (claiming runs in one statement). */
  readonly supportsUpdateReturning: boolean;
  /**
   * The database-wide lock that lets one process at a time migrate, taken on the session `conn` without waiting:
   * false while another session holds it. A session that ends (a crashed process) frees it, unlike knex's lock row.
   * Absent where one process owns the database (SQLite).
   */
  /**
   * Wakes other processes when events are appended (PostgreSQL NOTIFY/LISTEN). `notify` runs inside the appending
   * transaction (delivered at commit); `listen` keeps a connection of its own, reconnecting by itself. Absent where
   * the event log is polled instead.
   */
  readonly eventNotifications?: {
    notify(db: Knex | Knex.Transaction, origin: string): Promise<void>;
    listen(
      target: string,
      onNotify: (origin: string) => void,
      onError: (e: unknown) => void,
    ): Promise<{ close(): Promise<void> }>;
  };
  readonly migrationMutex?: {
    tryLock(knex: Knex, conn: unknown): Promise<boolean>;
    unlock(knex: Knex, conn: unknown): Promise<void>;
  };
}
