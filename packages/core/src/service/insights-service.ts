import { notFound } from "../errors.js";
import { computeImpact, type Impact } from "../insights/impact.js";
import { buildLineage, type LineageGraph } from "../insights/lineage.js";
import type { Store } from "../store/ports.js";

/** Cross-pipeline views derived from node configs: lineage and downstream impact. */
export class InsightsService {
  constructor(private readonly deps: { store: Store }) {}

  async lineage(): Promise<LineageGraph> {
    return buildLineage(await this.deps.store.pipelines.listFull());
  }

  async impact(pipelineId: string): Promise<Impact> {
    const all = await this.deps.store.pipelines.listFull();
    if (!all.some((p) => p.id === pipelineId)) throw notFound("pipeline", pipelineId);
    return computeImpact(pipelineId, all);
  }
}
