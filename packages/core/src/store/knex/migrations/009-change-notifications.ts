import type { Knex } from "knex";

/**
 * PostgreSQL only: the database itself announces changes other instances must hear of, at commit, whichever
 * instance, tool or hand made them — no extra round trip for the writer.
 * - Channel `sluice_pipelines` (payload: the pipeline id) on every write of a pipeline row: instances keep
 *   pipelines in memory and drop them on it (store/knex/cached-pipeline-store.ts).
 * - Channel `sluice_events` (payload: the writer's owner id) on every insert into the shared event log: instances
 *   following live events read the new rows (docs/events.md).
 */
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== "pg") return;
  await knex.raw(`
    create or replace function sluice_pipeline_changed() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        perform pg_notify('sluice_pipelines', old.id);
      else
        perform pg_notify('sluice_pipelines', new.id);
      end if;
      return null;
    end $$`);
  await knex.raw(`
    create trigger pipelines_changed after insert or update or delete on pipelines
    for each row execute procedure sluice_pipeline_changed()`);
  await knex.raw(`
    create or replace function sluice_events_appended() returns trigger language plpgsql as $$
    begin
      perform pg_notify('sluice_events', origin) from (select distinct origin from appended) o;
      return null;
    end $$`);
  await knex.raw(`
    create trigger run_events_appended after insert on run_events
    referencing new table as appended
    for each statement execute procedure sluice_events_appended()`);
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore a backup to go back");
}
