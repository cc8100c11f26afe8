import type { PaginationQuery, Sluice } from "@sluice/core";
import type { OperationHandler, RoutedOperationId } from "../operations.js";

type Ids = Extract<
  RoutedOperationId,
  "listVariables" | "upsertVariable" | "getVariable" | "updateVariable" | "deleteVariable" | "variableUsedBy"
>;

export function variableHandlers(sluice: Sluice): Record<Ids, OperationHandler> {
  const variables = sluice.variables;
  return {
    listVariables: ({ query }) => variables.list(query as PaginationQuery),
    upsertVariable: async ({ body, ctx }) => {
      const { created, variable } = await variables.upsert(body);
      // 201 when created (the operation's status), 200 when an existing variable was updated
      if (!created) ctx.status = 200;
      return variable;
    },
    getVariable: ({ params }) => variables.get(params.key!),
    updateVariable: ({ params, body }) => variables.update(params.key!, body),
    deleteVariable: ({ params }) => variables.delete(params.key!),
    variableUsedBy: ({ params }) => variables.usedBy(params.key!),
  };
}
