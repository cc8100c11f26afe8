export type {
  DialectName,
  LoginAttempt,
  LoginAttemptStore,
  LoginFailurePolicy,
  PipelineStore,
  Store,
  SystemStore,
  UserRecord,
  UserStore,
  VersionNote,
} from "./ports.js";
export { parseDatabaseUrl, type ParsedDatabaseUrl } from "./database-url.js";
export { createKnexStore, type KnexStore } from "./knex/create-knex-store.js";
