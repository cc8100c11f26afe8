import type { Page, Run } from "@sluice/client";

/** The runs list answers a plain array without `page`/`per_page` and the envelope with them: one shape for views. */
export function runItems<R extends Run>(data: R[] | Page<R> | undefined): { items: R[]; total: number } {
  if (!data) return { items: [], total: 0 };
  if (Array.isArray(data)) return { items: data, total: data.length };
  return { items: data.items, total: data.total };
}

export function runDurationMs(
  run: Pick<Run, "started_at" | "finished_at" | "status">,
  now = Date.now(),
): number | null {
  if (!run.started_at) return null;
  const end = run.finished_at ? Date.parse(run.finished_at) : run.status === "running" ? now : null;
  return end === null ? null : end - Date.parse(run.started_at);
}

export const TERMINAL = new Set(["success", "failed", "cancelled"]);
