import type { SystemInfo } from "../model/system.js";
import type { Store } from "../store/ports.js";
import { SLUICE_VERSION } from "../version.js";

export interface SystemServiceDeps {
  store: Store;
  maxConcurrentRuns: number;
  startedAt: number;
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
}
