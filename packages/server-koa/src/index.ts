export { createApp, apiRouter, type AppOptions } from "./app.js";
export { startServer, type RunningServer, type ServeOptions } from "./server.js";
export { DEFAULT_BODY_LIMITS, type BodyLimits } from "./middleware/json-body.js";
export { attachEventStream, type EventStreamOptions, type UpgradeDecision } from "./ws.js";
