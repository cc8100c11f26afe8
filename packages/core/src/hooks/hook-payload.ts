import type { Hook, HookEvent } from "../model/hook.js";

/** The JSON body every webhook hook receives (documented in docs/hooks.md). */
export interface HookPayload {
  event: HookEvent;
  pipeline_id: string;
  pipeline_name: string;
  run_id: string | null;
  node_id: string | null;
  status: string | null;
  error: string | null;
  /** For `sla.missed`: the local date and the deadline instant. */
  date?: string;
  deadline?: string;
  timestamp: string;
}

/** Slack-compatible body: one line of text. */
export function slackText(p: HookPayload): string {
  const what: Record<HookEvent, string> = {
    "run.started": "started",
    "run.succeeded": "succeeded",
    "run.failed": "failed",
    "node.failed": `node ${p.node_id ?? "?"} failed`,
    "sla.missed": `missed its SLA deadline ${p.deadline ?? ""} (${p.date ?? ""})`.trim(),
  };
  const run = p.run_id ? ` (run ${p.run_id})` : "";
  const error = p.error ? `: ${p.error}` : "";
  return `Sluice pipeline "${p.pipeline_name}" ${what[p.event]}${run}${error}`;
}

export function hookBody(hook: Hook, payload: HookPayload): unknown {
  return hook.type === "slack" ? { text: slackText(payload) } : payload;
}
