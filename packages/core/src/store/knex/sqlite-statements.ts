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
  private readonly connections = new WeakMap<BetterSqlite3.Database, Connection>();

  constructor(private readonly knex: Knex) {}

  use<T>(fn: (prepare: Prepare, db: BetterSqlite3.Database) => T): Promise<T> {
    return this.withConnection((connection, db) => fn(connection.prepare, db));
  }

  /** `fn` in one transaction (committed when it returns, rolled back when it throws). */
  transaction<T>(fn: (prepare: Prepare) => T): Promise<T> {
    return this.withConnection((connection) => connection.runInTransaction(() => fn(connection.prepare)));
  }

  private async withConnection<T>(fn: (connection: Connection, db: BetterSqlite3.Database) => T): Promise<T> {
    const db = (await this.knex.client.acquireConnection()) as BetterSqlite3.Database;
    try {
      return fn(this.connectionOf(db), db);
    } finally {
      await this.knex.client.releaseConnection(db);
    }
  }

  /** What is kept per connection, made at its first use. */
  private connectionOf(db: BetterSqlite3.Database): Connection {
    let connection = this.connections.get(db);
    if (!connection) {
      const statements = new Map<string, Statement>();
      const prepare: Prepare = (sql) => {
        let statement = statements.get(sql);
        if (!statement) {
          statement = db.prepare(sql);
          statements.set(sql, statement);
        }
        return statement;
      };
      // one transaction function for every batch: better-sqlite3 builds four wrappers and their properties for each
      // `db.transaction(…)`, which was done anew for every batch
      const runInTransaction = db.transaction((work: () => unknown) => work());
      connection = { prepare, runInTransaction: runInTransaction as Connection["runInTransaction"] };
      this.connections.set(db, connection);
    }
    return connection;
  }
}

/** A connection's prepared statements and its transaction function. */
interface Connection {
  readonly prepare: Prepare;
  /** Runs `work` in a transaction (a savepoint inside one already open), as `db.transaction(work)()` does. */
  readonly runInTransaction: <T>(work: () => T) => T;
}
