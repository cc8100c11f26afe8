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
}
