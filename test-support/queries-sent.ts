import type { Knex } from "knex";

/** A statement as knex sent it: its SQL (`?` placeholders) and values. */
export interface SentQuery {
  sql: string;
  bindings: readonly Knex.RawBinding[];
}

/** The statements `fn` sends through `knex`, in order, as knex sends them (values included). */
export async function queriesSent(knex: Knex, fn: () => Promise<unknown>): Promise<SentQuery[]> {
  const sent: SentQuery[] = [];
  const listener = (q: { sql: string; bindings?: readonly Knex.RawBinding[] }) =>
    sent.push({ sql: q.sql, bindings: q.bindings ?? [] });
  knex.on("query", listener);
  try {
    await fn();
  } finally {
    knex.off("query", listener);
  }
  return sent;
}
