import type { Sluice } from "@sluice/core";
import type { OperationHandler, RoutedOperationId } from "../operations.js";

type Ids = Extract<RoutedOperationId, "health" | "apiHealth" | "rootMetrics" | "metrics" | "systemInfo" | "purge">;

export function systemHandlers(sluice: Sluice): Record<Ids, OperationHandler> {
  const metrics: OperationHandler = async ({ ctx }) => {
    const { contentType, body } = await sluice.metrics.render();
    ctx.type = contentType;
    return body;
  };
  return {
    health: () => ({ status: "ok" }),
    apiHealth: () => ({ status: "ok" }),
    rootMetrics: metrics,
    metrics,
    systemInfo: () => sluice.system.info(),
    purge: ({ body }) => sluice.system.purge(body),
  };
}
