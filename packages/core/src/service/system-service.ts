import type { Clock } from "../clock.js";
import { PurgeRequestSchema, type PurgeResult, type SystemInfo } from "../model/system.js";
import { parseInput } from "../validation.js";
import type { Store } from "../store/ports.js";
import { SLUICE_VERSION } from "../version.js";

export interface SystemServiceDeps {
  store: Store;
  maxConcurrentRuns: number;
  startedAt: number;
  clock: Clock;
}

export class SystemService {
  constructor(private readonly deps: SystemServiceDeps) {}

  async info(): Promise<SystemInfo> {
    const { store } = this.deps;
    const [dbSize, pipelines, activeRuns] = await Promise.all([
      store.system.sizeBytes(),
      store.pipelines.count(),
      store.system.activeRunCount(),
    ]);
    return {
      version: SLUICE_VERSION,
      db_size: dbSize,
      db_size_mb: (dbSize / (1024 * 1024)).toFixed(2),
      pipelines,
      active_runs: activeRuns,
      max_concurrent_runs: this.deps.maxConcurrentRuns,
      store: store.dialect,
      uptime_s: Math.floor((Date.now() - this.deps.startedAt) / 1000),
    };
  }

  /** Deletes finished runs older than `days` days (default 30) with everything that hangs off them. */
  async purge(input: unknown): Promise<PurgeResult> {
    const { days } = parseInput(PurgeRequestSchema, input ?? {});
    const cutoff = new Date(this.deps.clock.now().getTime() - days * 86_400_000).toISOString();
    return { deleted: await this.deps.store.system.purgeRunsBefore(cutoff), days };
  }
}
