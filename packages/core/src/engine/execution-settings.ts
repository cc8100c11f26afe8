import type { PipelineNode } from "../model/node.js";

export const DEFAULT_TIMEOUT_S = 30 * 60;
export const DEFAULT_RETRY_DELAY_S = 1;
export const RETRY_BACKOFF_CAP_MS = 60_000;

export interface NodeExecutionSettings {
  maxRetries: number;
  retryDelayS: number;
  timeoutMs: number;
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined);

/** `max_retries`, `retry_delay`, `timeout` from the node's config, else from the node object (docs/nodes.md). */
export function executionSettings(node: PipelineNode): NodeExecutionSettings {
  const config = node.config ?? {};
  const maxRetries = Math.floor(num(config.max_retries) ?? node.max_retries ?? 0);
  const retryDelayS = num(config.retry_delay) ?? node.retry_delay ?? DEFAULT_RETRY_DELAY_S;
  const timeoutS = num(config.timeout) || node.timeout || DEFAULT_TIMEOUT_S;
  return { maxRetries, retryDelayS, timeoutMs: timeoutS * 1000 };
}

/** Delay before retry attempt `n` (1 = the first retry): `retry_delay * 2^(n-1)` seconds, capped at 60 s. */
export function retryDelayMs(retryDelayS: number, n: number): number {
  return Math.min(retryDelayS * 1000 * 2 ** (n - 1), RETRY_BACKOFF_CAP_MS);
}
