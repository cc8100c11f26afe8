import type { Knex } from "knex";
import { STATEMENT_BYTES } from "./rows.js";

type DbRow = Record<string, unknown>;

/** Bound values per combined statement: well under PostgreSQL's 65,535, whatever the parts' sizes. */
export const MAX_BINDINGS = 30_000;

export interface PartOptions {
  /** Receives the rows the part returns (`RETURNING`). */
  onRows?: (rows: DbRow[]) => void;
  /**
   * The sequence that numbers its rows in their order (`run_events`: the event log's `seq`): it shares its statement
   * with no other part numbered from that sequence, since parts of one statement are not executed in a known order.
   */
  ordered?: string;
  /**
   * The rows it writes that another part may write too (`runs:<id>`): a part never shares a statement with an
   * earlier one writing any of them, so it sees that part's write.
   */
  rows?: readonly string[];
}

interface Part extends PartOptions {
  query: Knex.QueryBuilder | Knex.Raw;
  /** Its SQL (`?` placeholders) and values, when it may be combined. */
  statement: Knex.Sql | null;
  /** Bytes of its string values. */
  bytes: number;
}

/**
 * The write statements of one run-state batch, in one transaction. Where the database can (`combine`: PostgreSQL),
 * they go out as the parts of as few statements as possible — data-modifying `WITH` queries, executed together, one
 * round trip each — instead of one round trip per statement; elsewhere one by one, in the order added.
 *
 * The parts of one statement see the same snapshot, not one another's writes, and PostgreSQL applies only one of two
 * updates of a row in one statement. So a part that writes a row an earlier part writes (`rows`) starts a new
 * statement, as does a second part `ordered` by one sequence, and a statement holds at most MAX_BINDINGS values
 * and STATEMENT_BYTES of text (unless one part alone is larger).
 */
export class BatchStatements {
  private readonly parts: Part[] = [];

  constructor(private readonly combine: boolean) {}

  add(query: Knex.QueryBuilder | Knex.Raw, options: PartOptions = {}): this {
    const statement = this.combine ? query.toSQL() : null;
    let bytes = 0;
    for (const value of statement?.bindings ?? []) if (typeof value === "string") bytes += value.length;
    this.parts.push({ ...options, query, statement, bytes });
    return this;
  }

  /** How many statements `run()` will send. */
  statementCount(): number {
    return this.groups().length;
  }

  /** Executes every part added, in order, on `db` (a transaction or the database); hands returning parts their rows. */
  async run(db: Knex | Knex.Transaction): Promise<void> {
    for (const group of this.groups()) await this.execute(db, group);
  }

  /** The parts, grouped into statements. */
  private groups(): Part[][] {
    if (!this.combine) return this.parts.map((p) => [p]);
    const groups: Part[][] = [];
    let group: Part[] = [];
    let bindings = 0;
    let bytes = 0;
    const sequences = new Set<string>();
    const written = new Set<string>();
    for (const part of this.parts) {
      const size = part.statement!.bindings.length;
      const full =
        group.length > 0 &&
        (bindings + size > MAX_BINDINGS ||
          bytes + part.bytes > STATEMENT_BYTES ||
          (part.ordered !== undefined && sequences.has(part.ordered)) ||
          (part.rows ?? []).some((row) => written.has(row)));
      if (full) {
        groups.push(group);
        group = [];
        bindings = bytes = 0;
        sequences.clear();
        written.clear();
      }
      group.push(part);
      bindings += size;
      bytes += part.bytes;
      if (part.ordered !== undefined) sequences.add(part.ordered);
      for (const row of part.rows ?? []) written.add(row);
    }
    if (group.length > 0) groups.push(group);
    return groups;
  }

  private async execute(db: Knex | Knex.Transaction, group: Part[]): Promise<void> {
    if (group.length === 1) {
      const [part] = group as [Part];
      const result = (await ("isTransaction" in db && db.isTransaction
        ? part.query.transacting(db as Knex.Transaction)
        : part.query)) as unknown;
      // a query builder's result is its rows; a raw query's (PostgreSQL) holds them
      part.onRows?.(Array.isArray(result) ? (result as DbRow[]) : ((result as { rows?: DbRow[] }).rows ?? []));
      return;
    }
    const statements = group.map((p) => p.statement!);
    const returning = group.flatMap((p, i) => (p.onRows ? [i] : []));
    const main =
      returning.length === 0
        ? "select 1"
        : returning.map((i) => `select ${i} as part, row_to_json(p${i}) as r from p${i}`).join(" union all ");
    const sql = `with ${statements.map((s, i) => `p${i} as (${s.sql})`).join(", ")} ${main}`;
    const result = (await db.raw(
      sql,
      statements.flatMap((s) => s.bindings),
    )) as { rows: DbRow[] };
    for (const i of returning)
      group[i]!.onRows!(result.rows.filter((r) => Number(r.part) === i).map((r) => r.r as DbRow));
  }
}
