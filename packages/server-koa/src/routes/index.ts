import type { Sluice } from "@sluice/core";
import type { OperationHandler, OperationHandlers } from "../operations.js";
import { authHandlers } from "./auth.js";
import { connectionHandlers } from "./connections.js";
import { insightHandlers } from "./insights.js";
import { pipelineHandlers } from "./pipelines.js";
import { runHandlers } from "./runs.js";
import { systemHandlers } from "./system.js";
import { variableHandlers } from "./variables.js";

/** The handler of every routed operation (the type makes the set exhaustive); `openapi` is served by the app. */
export function operationHandlers(sluice: Sluice, openapi: OperationHandler): OperationHandlers {
  return {
    ...authHandlers(sluice),
    ...systemHandlers(sluice),
    ...insightHandlers(sluice),
    ...pipelineHandlers(sluice),
    ...runHandlers(sluice),
    ...connectionHandlers(sluice),
    ...variableHandlers(sluice),
    openapi,
  };
}
