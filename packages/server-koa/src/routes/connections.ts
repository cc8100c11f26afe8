import type { PaginationQuery, Sluice } from "@sluice/core";
import type { OperationHandler, RoutedOperationId } from "../operations.js";

type Ids = Extract<
  RoutedOperationId,
  | "connectionTypes"
  | "listConnections"
  | "createConnection"
  | "getConnection"
  | "updateConnection"
  | "deleteConnection"
  | "testConnection"
  | "connectionUsedBy"
>;

export function connectionHandlers(sluice: Sluice): Record<Ids, OperationHandler> {
  const connections = sluice.connections;
  return {
    connectionTypes: () => connections.types(),
    listConnections: ({ query }) => connections.list(query as PaginationQuery),
    createConnection: ({ body }) => connections.create(body),
    getConnection: ({ params }) => connections.get(params.conn_id!),
    updateConnection: ({ principal, params, body }) => connections.update(params.conn_id!, body ?? {}, principal),
    deleteConnection: ({ params }) => connections.delete(params.conn_id!),
    testConnection: ({ params }) => connections.test(params.conn_id!),
    connectionUsedBy: ({ params }) => connections.usedBy(params.conn_id!),
  };
}
