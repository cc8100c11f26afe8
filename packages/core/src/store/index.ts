export type {
  ClaimedRun,
  NodeOutputKind,
  KeptOutputPartKind,
  NodeOutputRecord,
  RunStore,
  DialectName,
  InsightStore,
  LeaseStore,
  LoginAttempt,
  LoginAttemptStore,
  LoginFailurePolicy,
  PipelineStore,
  ScheduleRef,
  SchedulerState,
  SchedulerStateStore,
  Store,
  SystemStore,
  UserRecord,
  UserStore,
  VersionNote,
} from "./ports.js";
export { isDatabaseUnavailable } from "./database-unavailable.js";
export { parseDatabaseUrl, type ParsedDatabaseUrl } from "./database-url.js";
export { createKnexStore, migrateDatabase, unlockMigrations, type KnexStore } from "./knex/create-knex-store.js";
