export * from "./model/index.js";
export { SluiceError, isSluiceError, notFound, HTTP_STATUS_BY_CODE, ERROR_CODES, type SluiceErrorCode } from "./errors.js";
export { SluiceEvents } from "./events.js";
export { systemClock, type Clock } from "./clock.js";
export { newId } from "./ids.js";
export { createConsoleLogger, silentLogger, type Logger } from "./logger.js";
export { SLUICE_VERSION } from "./version.js";
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
export { createSluice, type Sluice } from "./service/create-sluice.js";
export { SluiceOptionsSchema, type SluiceOptions, type ResolvedSluiceOptions } from "./service/options.js";
export { PipelineService } from "./service/pipeline-service.js";
export { SystemService } from "./service/system-service.js";
export { generateApiKey, matchesApiKey, API_KEY_PATTERN, API_KEY_PREFIX } from "./auth/api-keys.js";
export { AuthService } from "./service/auth-service.js";
export {
  PERMISSIONS,
  ROLE_PERMISSIONS,
  ROUTE_PERMISSIONS,
  roleHasPermission,
  routeAccess,
  routeKey,
  isSelfAuthenticated,
  SELF_AUTHENTICATED_ROUTES,
  type Permission,
  type RouteAccess,
} from "./auth/permissions.js";
export { API_KEY_IDENTITY, OPEN_MODE_IDENTITY, type AuthenticatedPrincipal, type Credentials, type Principal } from "./auth/principal.js";
export { TOKEN_TTL_SECONDS } from "./auth/tokens.js";
export { LOCKOUT_THRESHOLD, LOCKOUT_WINDOW_MS, LOCKOUT_DURATION_MS } from "./auth/lockout.js";
export { JWT_SECRET_FILE, decodeJwtSecret } from "./auth/jwt-secret.js";
