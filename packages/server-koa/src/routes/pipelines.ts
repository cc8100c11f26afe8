import { parseInput, RollbackRequestSchema, type PaginationQuery, type Sluice } from "@sluice/core";
import type { OperationHandler, RoutedOperationId } from "../operations.js";

type Ids = Extract<
  RoutedOperationId,
  | "listPipelines"
  | "createPipeline"
  | "importPipeline"
  | "bulkPipelines"
  | "getPipeline"
  | "updatePipeline"
  | "patchPipeline"
  | "deletePipeline"
  | "clonePipeline"
  | "exportPipeline"
  | "validatePipeline"
  | "validateNodes"
  | "listVersions"
  | "getVersion"
  | "rollback"
>;

export function pipelineHandlers(sluice: Sluice): Record<Ids, OperationHandler> {
  const pipelines = sluice.pipelines;
  return {
    listPipelines: ({ query }) => pipelines.list(query as PaginationQuery),
    createPipeline: ({ body }) => pipelines.create(body),
    importPipeline: ({ body }) => pipelines.import(body),
    bulkPipelines: ({ body }) => pipelines.bulk(body),
    getPipeline: ({ params }) => pipelines.get(params.id!),
    updatePipeline: ({ params, body }) => pipelines.update(params.id!, body),
    patchPipeline: ({ params, body }) => pipelines.update(params.id!, body),
    deletePipeline: ({ params }) => pipelines.delete(params.id!),
    clonePipeline: ({ params }) => pipelines.clone(params.id!),
    exportPipeline: async ({ params, ctx }) => {
      const document = await pipelines.export(params.id!);
      ctx.set(
        "Content-Disposition",
        `attachment; filename="pipeline-${params.id!.replace(/[^A-Za-z0-9_-]/g, "_")}.json"`,
      );
      return document;
    },
    validatePipeline: ({ params }) => pipelines.validate(params.id!),
    validateNodes: ({ params, body }) => pipelines.validateNodes(params.id!, body ?? {}),
    listVersions: ({ params }) => pipelines.versions(params.id!),
    getVersion: ({ params }) => pipelines.version(params.id!, params.version_id!),
    rollback: ({ params, body }) => pipelines.rollback(params.id!, parseInput(RollbackRequestSchema, body).version_id),
  };
}
