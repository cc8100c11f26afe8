export * from "./common.js";
export * from "./node.js";
export * from "./hook.js";
export * from "./pipeline.js";
export * from "./version.js";
export * from "./run.js";
export * from "./connection.js";
export * from "./variable.js";
export * from "./user.js";
export * from "./dlq.js";
export * from "./event.js";
export * from "./event-types.js";
export * from "./event-stream.js";
export * from "./system.js";
export * from "./insights.js";
export * from "./error-codes.js";
export * from "./permissions.js";
// explicit: the client prints every exported type of the model as plain TypeScript, and these helpers are generic
export {
  OPERATIONS,
  pathParamNames,
  fillPath,
  type OperationId,
  type OperationSpec,
  type HttpMethod,
} from "./operations.js";
export { OPERATION_IO, type OperationTypes } from "./operation-io.js";
