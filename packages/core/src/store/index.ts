export type {
  ClaimedRun,
  NodeOutputKind,
  NodeOutputRecord,
  RunStore,
  DialectName,
  InsightStore,
  LeaseStore,
  LoginAttempt,
  LoginAttemptStore,
  LoginFailurePolicy,
  PipelineStore,
  SchedulerState,
  SchedulerStateStore,
  Store,
  SystemStore,
  UserRecord,
  UserStore,
  VersionNote,
} from "./ports.js";
export { parseDatabaseUrl, type ParsedDatabaseUrl } from "./database-url.js";
export { createKnexStore, type KnexStore } from "./knex/create-knex-store.js";
