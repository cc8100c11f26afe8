import type { Knex } from "knex";
import type { PoolClient } from "pg";

type DbRow = Record<string, unknown>;

/** A statement knex compiled once: PostgreSQL's text (`$1`, `$2`, …) and the name it is prepared under. */
export interface PgStatement {
  readonly name: string;
  readonly text: string;
}

/**
 * The PostgreSQL text of `query` (built by knex, its values in the order of its `?` placeholders), prepared under
 * `name` on each connection the first time it runs there; PostgreSQL then plans it once per connection.
 */
export function pgStatement(name: string, query: Knex.QueryBuilder | Knex.Raw): PgStatement {
  return { name, text: query.toSQL().toNative().sql };
}

/**
 * node-postgres used directly, for the statements every run executes (the claim, a run-state batch). Through knex
 * each one is built, compiled and run by knex's query runner again every time; here knex compiles it once, and
 * PostgreSQL plans it once per connection (`bench/pg-store-statements.mjs`: a claim at 0.64 times the CPU and 0.40
 * times the wall time). The connection comes from knex's pool and goes back to it, as knex's own queries do; the
 * statement runs outside any transaction, as its own. knex's query events (and `DEBUG=knex:query`) do not see these
 * statements, and their errors are node-postgres's own, without the statement's text in front.
 */
export class PgStatements {
  constructor(private readonly knex: Knex) {}

  async rows(statement: PgStatement, values: readonly unknown[]): Promise<DbRow[]> {
    const client = (await this.knex.client.acquireConnection()) as PoolClient;
    try {
      const result = await client.query<DbRow>({ name: statement.name, text: statement.text, values: [...values] });
      return result.rows;
    } finally {
      await this.knex.client.releaseConnection(client);
    }
  }
}

/** A statement whose values are the parameters of one call (named) among values fixed when it was built. */
export interface PgTemplate<P extends string> {
  readonly statement: PgStatement;
  values(params: Readonly<Record<P, unknown>>): unknown[];
}

/**
 * A query knex builds once, given a marker for each parameter (`markers`: values no query holds otherwise, a number
 * where knex needs one): `values(params)` is the query's values with each marker replaced by its parameter.
 */
export function pgTemplate<P extends string>(
  name: string,
  markers: Readonly<Record<P, string | number>>,
  build: (markers: Readonly<Record<P, string | number>>) => Knex.QueryBuilder | Knex.Raw,
): PgTemplate<P> {
  const { sql, bindings } = build(markers).toSQL().toNative();
  const byMarker = new Map<unknown, P>(Object.entries(markers).map(([param, marker]) => [marker, param as P]));
  const slots = bindings.map((value): { param: P } | { value: unknown } => {
    const param = byMarker.get(value);
    return param === undefined ? { value } : { param };
  });
  for (const param of byMarker.values())
    if (!slots.some((s) => "param" in s && s.param === param))
      throw new Error(`statement ${name}: parameter ${param} is not among its values`);
  return {
    statement: { name, text: sql },
    values: (params) => slots.map((s) => ("param" in s ? params[s.param] : s.value)),
  };
}
