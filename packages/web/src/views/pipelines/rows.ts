import type { PipelineRunSummary } from "@sluice/client";

/** One row of the list: a summary entry, with its last run and its next scheduled run (`next_run_at`). */
export type PipelineRow = PipelineRunSummary;

export const STATUS_FILTERS = ["success", "failed", "running", "pending", "cancelled", "never"] as const;

export type SortKey = "name" | "last_run" | "next_run";

export function filterRows(rows: PipelineRow[], q: string, status: string, enabled: string): PipelineRow[] {
  const needle = q.trim().toLowerCase();
  return rows.filter((r) => {
    if (status === "never" ? r.last_run_status !== null : status !== "" && r.last_run_status !== status) return false;
    if (enabled === "enabled" && !r.enabled) return false;
    if (enabled === "disabled" && r.enabled) return false;
    if (!needle) return true;
    return (
      r.name.toLowerCase().includes(needle) ||
      r.description.toLowerCase().includes(needle) ||
      r.tags.some((t) => t.toLowerCase().includes(needle)) ||
      r.id === needle
    );
  });
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

export function sortRows(rows: PipelineRow[], key: SortKey): PipelineRow[] {
  const out = [...rows];
  const time = (v: string | null | undefined, missing: number) => (v ? Date.parse(v) : missing);
  if (key === "name") out.sort((a, b) => collator.compare(a.name, b.name));
  // most recent first; never-run last
  if (key === "last_run") out.sort((a, b) => time(b.last_run_at, -Infinity) - time(a.last_run_at, -Infinity));
  // soonest first; unscheduled last
  if (key === "next_run") out.sort((a, b) => time(a.next_run_at, Infinity) - time(b.next_run_at, Infinity));
  return out;
}
