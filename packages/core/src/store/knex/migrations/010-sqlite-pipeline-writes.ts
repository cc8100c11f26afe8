import type { Knex } from "knex";

/**
 * SQLite only: a count of writes to `pipelines`, kept by triggers whoever writes — this process through any path,
 * another process, an operator's `sqlite3` shell. The SQLite store keeps pipelines in memory and drops them when the
 * count moves (store/knex/sqlite-change-feed.ts), as PostgreSQL's `pipelines_changed` notifications make it do there
 * (009).
 */
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== "better-sqlite3") return;
  await knex.raw("create table pipeline_writes (id integer primary key check (id = 1), count integer not null)");
  await knex.raw("insert into pipeline_writes (id, count) values (1, 0)");
  for (const op of ["insert", "update", "delete"]) {
    await knex.raw(
      `create trigger pipelines_${op}_counted after ${op} on pipelines ` +
        "begin update pipeline_writes set count = count + 1 where id = 1; end",
    );
  }
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore a backup to go back");
}
