import type { Knex } from "knex";

type DbRow = Record<string, unknown>;

/** Bound values per combined statement: well under PostgreSQL's 65,535, whatever the parts' sizes. */
const MAX_BINDINGS = 30_000;

interface Part {
  query: Knex.QueryBuilder;
  /** Its SQL (`?` placeholders) and values, when it may be combined. */
  statement: Knex.Sql | null;
  /** Receives the rows the part returns (`RETURNING`). */
  onRows?: (rows: DbRow[]) => void;
  /** Its returned rows' order matters: such a part shares its statement with no other one. */
  ordered: boolean;
}

/**
 * The write statements of one run-state batch, in one transaction. Where the database can (`combine`: PostgreSQL),
 * they go out as the parts of as few statements as possible — data-modifying `WITH` queries, executed together, one
 * round trip each — instead of one round trip per statement; elsewhere one by one, in the order added.
 *
 * The parts of one statement see the same snapshot, not one another's rows: a batch's parts write different rows
 * (new runs; node runs, logs and outputs of runs claimed earlier; ends of those runs), and foreign keys are checked
 * at the end of the statement. Parts whose rows come back in an order that matters (`ordered`: the event log's
 * sequence numbers) are never combined with another such part.
 */
export class BatchStatements {
  private readonly parts: Part[] = [];

  constructor(
    private readonly db: Knex | Knex.Transaction,
    private readonly combine: boolean,
  ) {}

  add(query: Knex.QueryBuilder, onRows?: (rows: DbRow[]) => void, ordered = false): this {
    this.parts.push({ query, statement: this.combine ? query.toSQL() : null, onRows, ordered });
    return this;
  }

  /** How many statements `run()` will send. */
  statementCount(): number {
    return this.groups().length;
  }

  /** Executes every part added, in order, and hands each returning part its rows. */
  async run(): Promise<void> {
    for (const group of this.groups()) await this.execute(group);
  }

  /** The parts, grouped into statements. */
  private groups(): Part[][] {
    if (!this.combine) return this.parts.map((p) => [p]);
    const groups: Part[][] = [];
    let group: Part[] = [];
    let bindings = 0;
    for (const part of this.parts) {
      const full =
        group.length > 0 &&
        (bindings + part.statement!.bindings.length > MAX_BINDINGS || (part.ordered && group.some((p) => p.ordered)));
      if (full) {
        groups.push(group);
        group = [];
        bindings = 0;
      }
      group.push(part);
      bindings += part.statement!.bindings.length;
    }
    if (group.length > 0) groups.push(group);
    return groups;
  }

  private async execute(group: Part[]): Promise<void> {
    if (group.length === 1) {
      const [part] = group as [Part];
      const result = (await part.query) as unknown;
      part.onRows?.(Array.isArray(result) ? (result as DbRow[]) : []);
      return;
    }
    const statements = group.map((p) => p.statement!);
    const returning = group.flatMap((p, i) => (p.onRows ? [i] : []));
    const main =
      returning.length === 0
        ? "select 1"
        : returning.map((i) => `select ${i} as part, row_to_json(p${i}) as r from p${i}`).join(" union all ");
    const sql = `with ${statements.map((s, i) => `p${i} as (${s.sql})`).join(", ")} ${main}`;
    const result = (await this.db.raw(
      sql,
      statements.flatMap((s) => s.bindings),
    )) as { rows: DbRow[] };
    for (const i of returning)
      group[i]!.onRows!(result.rows.filter((r) => Number(r.part) === i).map((r) => r.r as DbRow));
  }
}
