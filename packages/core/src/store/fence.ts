import type { RunClaim, RunStateBatch } from "./ports.js";

/**
 * Whether the run's current `owner`/`epoch` (as read inside the writing transaction) is still `claim`: a run taken
 * over by another instance (failed as interrupted, or claimed again) no longer matches. A run cancelled while it
 * executes keeps its owner, who records how its executing nodes ended.
 */
export const claimHolds = (claim: RunClaim, row: Record<string, unknown>): boolean =>
  (row.status === "running" || row.status === "cancelled") &&
  row.owner === claim.owner &&
  Number(row.epoch) === claim.epoch;

/** The claims a batch is written under: its own, and those its transitions carry. */
export function claimsOf(batch: RunStateBatch): Map<string, RunClaim> {
  const claims = new Map(batch.claims ?? []);
  for (const t of batch.transitions ?? []) {
    // an older claim never replaces a newer one
    if (t.claim && (claims.get(t.id)?.epoch ?? -1) < t.claim.epoch) claims.set(t.id, t.claim);
  }
  return claims;
}

/** The batch without anything of the `refused` runs (their node runs, logs, outputs, transitions and events). */
export function withoutRuns(batch: RunStateBatch, refused: ReadonlySet<string>): RunStateBatch {
  if (refused.size === 0) return batch;
  const keep = <T extends { run_id: string }>(items: readonly T[]) => items.filter((i) => !refused.has(i.run_id));
  return {
    ...batch,
    nodeRuns: keep(batch.nodeRuns),
    logs: keep(batch.logs),
    outputs: keep(batch.outputs),
    transitions: batch.transitions?.filter((t) => !refused.has(t.id)),
    events: batch.events?.filter((e) => !refused.has(e.event.run_id)),
  };
}
