import type { Knex } from "knex";

/** Runs written by this process at which it first analyzes the tables, and then at every doubling of that. */
const FIRST_AT = 256;
/** Past this many runs written, plans made on tables this large stay good as they grow: autovacuum alone goes on. */
const LAST_AT = 131_072;
/** The tables the statements every run executes read by key: the claim's and the batch's. */
const ANALYZED = "analyze runs, node_runs";

/**
 * Plans of PostgreSQL's prepared statements kept fit for tables that grow. A named statement (pg-statements.ts) is
 * planned once per connection, and that plan is kept until the tables' statistics change: made while `runs` held a
 * few rows, the claim's and the batch's plans read it, and `node_runs`, whole (a scan is cheaper than an index on a
 * page or two), and went on doing so as they grew. Autovacuum gathers statistics only a minute or more after a
 * database is first written (never where it is off), so a new database ran ever slower until then, each claim and
 * batch reading every run (20,000 runs at less than half the speed: docs/performance.md). This process analyzes
 * those tables itself when it has written 256 runs, and again at every doubling of that up to 131,072: each ANALYZE
 * makes every connection plan its statements anew, for tables of the size they have then. Where `runs` was last
 * analyzed holding 131,072 rows or more (a database in use for long), it does nothing: an ANALYZE of large tables
 * costs PostgreSQL a sample of 30,000 rows each and every connection five plannings of each statement, for plans
 * that were right already. It runs beside the runs' writes (it blocks no read or write), one at a time, waits
 * at most a second for a lock (a VACUUM of the same table holds one), and a failure costs nothing but the refresh:
 * autovacuum does the same later.
 */
export class PgPlanRefresh {
  private written = 0;
  private nextAt = FIRST_AT;
  private analyzing: Promise<void> | null = null;

  constructor(private readonly knex: Knex) {}

  /** `count` runs were written (inserted) by this process. */
  runsWritten(count: number): void {
    this.written += count;
    if (this.written < this.nextAt || this.nextAt > LAST_AT || this.analyzing) return;
    while (this.nextAt <= this.written) this.nextAt *= 2;
    this.analyzing = this.analyze().finally(() => (this.analyzing = null));
  }

  /** Resolves once an ANALYZE under way (if any) has ended. */
  settled(): Promise<void> {
    return this.analyzing ?? Promise.resolve();
  }

  private async analyze(): Promise<void> {
    try {
      // tables analyzed at this size already (by autovacuum, or by an earlier process) have plans for their size
      const { rows } = (await this.knex.raw("select reltuples from pg_class where oid = 'runs'::regclass")) as {
        rows: { reltuples: number }[];
      };
      if (Number(rows[0]?.reltuples) >= LAST_AT) {
        this.nextAt = Infinity;
        return;
      }
      await this.knex.transaction(async (trx) => {
        await trx.raw("set local lock_timeout = '1s'");
        await trx.raw(ANALYZED);
      });
    } catch {
      // a lock not had in time, a connection lost, a role that does not own the tables: the plans stay as they are
    }
  }
}
