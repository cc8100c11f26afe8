export { createApp, apiRouter, registeredRoutes, type AppOptions, type RegisteredRoute } from "./app.js";
export { authorizeUpgrade } from "./auth/authorize-upgrade.js";
export { credentialsFromHeaders, SESSION_COOKIE } from "./auth/credentials.js";
export { startServer, type RunningServer, type ServeOptions } from "./server.js";
export { DEFAULT_BODY_LIMITS, type BodyLimits } from "./middleware/json-body.js";
export { attachEventStream, type EventStreamOptions, type UpgradeDecision } from "./ws.js";
