import type { EventLogEntry, RunTransition } from "./ports.js";

/**
 * The events of the transitions that moved (RunTransition `event`), in the order of `transitions`: a batch appends
 * them to the event log after its own events, in its transaction.
 */
export function eventsOfMoved(transitions: readonly RunTransition[], moved: readonly string[]): EventLogEntry[] {
  const movedIds = new Set(moved);
  return transitions.flatMap((t) => (t.event && movedIds.has(t.id) ? [t.event] : []));
}
