export type { DialectName, LeaseStore, SchedulerState, SchedulerStateStore, PipelineStore, Store, SystemStore, VersionNote } from "./ports.js";
export { parseDatabaseUrl, type ParsedDatabaseUrl } from "./database-url.js";
export { createKnexStore, type KnexStore } from "./knex/create-knex-store.js";
