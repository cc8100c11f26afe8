import type BetterSqlite3 from "better-sqlite3";
import type { Knex } from "knex";

type Statement = BetterSqlite3.Statement<unknown[], unknown>;

/** Prepares `sql` once per connection; later calls with the same text get the same statement. */
export type Prepare = (sql: string) => Statement;

/**
 * better-sqlite3 used directly, for the statements every run executes. Through knex each statement is built from
 * scratch and prepared anew: about half the CPU a run costs. Here statements are prepared once per connection and
 * kept. The connection is taken from knex's pool, which holds one: while `use` runs, no knex query or transaction
 * can be open on it, and `fn` runs synchronously to the end, so nothing interleaves with it either.
 */
export class SqliteStatements {
  private readonly prepared = new WeakMap<BetterSqlite3.Database, Map<string, Statement>>();

  constructor(private readonly knex: Knex) {}

  async use<T>(fn: (prepare: Prepare, db: BetterSqlite3.Database) => T): Promise<T> {
    const db = (await this.knex.client.acquireConnection()) as BetterSqlite3.Database;
    try {
      let statements = this.prepared.get(db);
      if (!statements) {
        statements = new Map();
        this.prepared.set(db, statements);
      }
      const cache = statements;
      const prepare: Prepare = (sql) => {
        let statement = cache.get(sql);
        if (!statement) {
          statement = db.prepare(sql);
          cache.set(sql, statement);
        }
        return statement;
      };
      return fn(prepare, db);
    } finally {
      await this.knex.client.releaseConnection(db);
    }
  }

  /** `fn` in one transaction (committed when it returns, rolled back when it throws). */
  transaction<T>(fn: (prepare: Prepare) => T): Promise<T> {
    return this.use((prepare, db) => db.transaction(() => fn(prepare))());
  }
}
