import type { RunStatus } from "../model/run.js";

/** What the scheduler needs from runs; implemented over the run store by the facade. */
export interface SchedulerRunsPort {
  /**
   * Queues the run of one schedule slot, recorded as fired in the same transaction; null when the slot had already
   * fired (so retrying after an error never fires a slot twice).
   */
  triggerSlot(pipelineId: string, trigger: "schedule" | "catchup", slotIso: string): Promise<{ id: string } | null>;
  /** The most recent run of a pipeline, any trigger. */
  latestRun(
    pipelineId: string,
  ): Promise<{ id: string; status: RunStatus; created_at: string; finished_at: string | null } | null>;
  /** When the latest successful run finished, or null. */
  lastSuccessFinishedAt(pipelineId: string): Promise<string | null>;
}

/** Timer port so tests can drive the scheduler with a fake clock and `tick()` instead of sleeping. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => {
    const handle = setTimeout(fn, ms);
    handle.unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
