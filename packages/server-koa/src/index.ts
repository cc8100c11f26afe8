export { createApp, registeredRoutes, type AppOptions, type RegisteredRoute } from "./app.js";
export { authorizeUpgrade } from "./auth/authorize-upgrade.js";
export { credentialsFromHeaders, SESSION_COOKIE } from "./auth/credentials.js";
export { startServer, type RunningServer, type ServeOptions } from "./server.js";
export { DEFAULT_BODY_BYTES } from "./middleware/json-body.js";
export type { OperationHandler, OperationHandlers, OperationRequest, RoutedOperationId } from "./operations.js";
export { createEventStream, type EventStream, type EventStreamOptions } from "./ws.js";
export { findWebRoot, UI_CSP, webUi, type UiOption } from "./web-ui.js";
