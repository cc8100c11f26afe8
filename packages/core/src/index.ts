export * from "./model/index.js";
export {
  SluiceError,
  isSluiceError,
  notFound,
  HTTP_STATUS_BY_CODE,
  ERROR_CODES,
  type SluiceErrorCode,
} from "./errors.js";
export { SluiceEvents } from "./events.js";
export { systemClock, type Clock } from "./clock.js";
export { newId } from "./ids.js";
export { createConsoleLogger, silentLogger, type Logger } from "./logger.js";
export { SLUICE_VERSION } from "./version.js";
export { isWellFormedText } from "./well-formed-text.js";
export { parseInput, describeIssues } from "./validation.js";
export { topologicalWaves, buildAdjacency, descendants } from "./dag/graph.js";
export {
  validatePipelineDefinition,
  structuralErrors,
  nodeConfigErrors,
  pipelineWarnings,
  cronError,
  isValidTimezone,
  MAX_NODES,
  MAX_PIPELINE_NAME,
} from "./dag/validate-pipeline.js";
export * from "./store/index.js";
export { createSluice, storeOf, type Sluice } from "./service/create-sluice.js";
export { SluiceOptionsSchema, type SluiceOptions, type ResolvedSluiceOptions } from "./service/options.js";
export { PipelineService } from "./service/pipeline-service.js";
export { SystemService } from "./service/system-service.js";
export { generateApiKey, matchesApiKey, API_KEY_PATTERN, API_KEY_PREFIX } from "./auth/api-keys.js";
export { InsightsService } from "./service/insights-service.js";
export { buildLineage, type LineageGraph, type LineageNode, type LineageEdge } from "./insights/lineage.js";
export { computeImpact, type Impact, type ImpactEntry } from "./insights/impact.js";
export { nodeReferences, type NodeReferences, type TableRef } from "./insights/node-references.js";
export { SchedulerService, type SchedulerStatusEntry } from "./scheduler/scheduler-service.js";
export type { SchedulerRunsPort, Timers } from "./scheduler/ports.js";
export { nextSlot, previousSlot, slotsBetween } from "./scheduler/cron.js";
export { HookDispatcher } from "./hooks/hook-dispatcher.js";
export type { HookPayload } from "./hooks/hook-payload.js";
export { SluiceMetrics } from "./metrics/metrics.js";
export { EventJournal } from "./event-journal.js";
export { AuthService } from "./service/auth-service.js";
export { ROLE_PERMISSIONS, roleHasPermission, PIPELINE_SECRETS_PERMISSION } from "./auth/permissions.js";
export { hideSecretsFrom, seesPipelineSecrets } from "./auth/hide-secrets.js";
export { crossSiteRefusal, type BrowserRequest } from "./auth/same-origin.js";
export { openModeHostRefusal } from "./auth/open-mode-host.js";
export {
  API_KEY_IDENTITY,
  OPEN_MODE_IDENTITY,
  type AuthenticatedPrincipal,
  type Credentials,
  type Principal,
} from "./auth/principal.js";
export { TOKEN_TTL_SECONDS } from "./auth/tokens.js";
export { LOCKOUT_THRESHOLD, LOCKOUT_WINDOW_MS, LOCKOUT_DURATION_MS } from "./auth/lockout.js";
export { JWT_SECRET_FILE, decodeJwtSecret } from "./auth/jwt-secret.js";
export { WebhookService, WEBHOOK_RATE_WINDOW_MS, IDEMPOTENCY_WINDOW_MS } from "./service/webhook-service.js";
export { RunService } from "./service/run-service.js";
export { DEFAULT_HEARTBEAT_MS, DEFAULT_STALE_MS, Executor, type ExecutorOptions } from "./engine/executor.js";
export { RunExecution, PREVIEW_ROWS, INTERRUPTED } from "./engine/run-execution.js";
export { NODE_TYPE_REGISTRY, mergeNodeTypes } from "./engine/nodes/index.js";
export {
  defineNodeType,
  lookupNodeType,
  type NodeContext,
  type NodeResult,
  type NodeTypeDefinition,
  type NodeTypeRegistry,
  type DeclaredReferences,
  type BoundSql,
} from "./engine/node-type.js";
export { createNodeContext, type NodeContextOptions } from "./engine/node-context.js";
export { killSqliteWorkers, sqliteWorkersStillRunning } from "./engine/db/sqlite-worker.js";
export { CodeRunnerPool, sharedCodeRunnerPool, type CodeRunOptions } from "./sandbox/code-runner-pool.js";
export { dataSetFromRows, EMPTY_DATASET, type DataSet, type Row } from "./engine/dataset.js";
export { executionSettings, retryDelayMs } from "./engine/execution-settings.js";
export { profileDataSet } from "./engine/profile.js";
export type { SecretsResolver, ResolvedConnection, ResolvedVariable } from "./connectors/resolver.js";
export { ConnectionService, CONNECTION_TEST_TIMEOUT_MS, type UsedBy } from "./service/connection-service.js";
export { VariableService } from "./service/variable-service.js";
export { Vault, loadVault, decodeSecretKey, SECRET_KEY_ENV } from "./vault/vault.js";
export { CONNECTORS, CONNECTION_TYPE_INFO } from "./connectors/registry.js";
export type { Connector, ConnectionFields } from "./connectors/connector.js";
