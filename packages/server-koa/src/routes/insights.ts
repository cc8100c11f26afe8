import type { SearchQuery, Sluice } from "@sluice/core";
import type { OperationHandler, RoutedOperationId } from "../operations.js";

type Ids = Extract<
  RoutedOperationId,
  "dashboard" | "pipelineSummary" | "search" | "lineage" | "impact" | "schedulerStatus" | "dependencies"
>;

export function insightHandlers(sluice: Sluice): Record<Ids, OperationHandler> {
  return {
    dashboard: () => sluice.insights.dashboard(),
    pipelineSummary: () => sluice.insights.summary(),
    search: ({ query }) => sluice.insights.search(query as SearchQuery),
    lineage: () => sluice.insights.lineage(),
    impact: ({ params }) => sluice.insights.impact(params.id!),
    schedulerStatus: () => sluice.scheduler.status(),
    dependencies: ({ params }) => sluice.scheduler.dependencies(params.id!),
  };
}
