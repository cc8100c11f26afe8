// Every model type (Pipeline, Run, Connection, …), so callers can name what the methods take and return. They are
// types only: the published package carries them as plain declarations (dist/model.d.ts), without zod or core.
export type * from "@sluice/core/model";
export { SluiceClient } from "./client.js";
export { operationAllowed } from "./access.js";
export {
  CONN_ID_PATTERN,
  MASKED_SECRET,
  VARIABLE_KEY_PATTERN,
  MIN_PASSWORD_LENGTH,
  MAX_PASSWORD_LENGTH,
} from "./input-rules.js";
export { SluiceApiError } from "./errors.js";
export { Transport, type ClientOptions, type Query, type RequestOptions } from "./transport.js";
export type { CallInput, CallOutput, PipelineImpact } from "./client.js";
export {
  subscribeEvents,
  type StreamEvent,
  type StreamFilter,
  type SubscribeOptions,
  type Subscription,
  type WebSocketLike,
} from "./events.js";
export { applyPipeline, type ApplyResult } from "./apply.js";
export {
  definePipeline,
  NodeBuilder,
  node,
  sourceDb,
  sourceApi,
  sourceFile,
  transform,
  join,
  union,
  sql,
  code,
  quality,
  condition,
  sinkDb,
  sinkFile,
  sinkApi,
  migrate,
  notify,
  type NodeConfigOf,
  type NodeConfigs,
  type NodeOptions,
  type NodeSettings,
  type PipelineDefinitionInput,
} from "./builder.js";
