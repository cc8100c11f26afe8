import type { SluiceEvents } from "../events.js";
import type { Logger } from "../logger.js";
import type { SluiceEventMap } from "../model/event.js";
import type { Hook, HookEvent } from "../model/hook.js";
import type { Pipeline } from "../model/pipeline.js";
import type { LogLevel } from "../model/run.js";
import type { Store } from "../store/ports.js";
import { defaultHttpClient, type HttpClient } from "../engine/http/http-client.js";
import { SecretScrubber } from "../engine/secret-scrubber.js";
import { hookBody, type HookPayload } from "./hook-payload.js";

export interface HookDispatcherDeps {
  store: Store;
  events: SluiceEvents;
  logger: Logger;
  /** Writes a line into the run's log (delivery results); absent for events without a run. */
  appendRunLog?: (runId: string, level: LogLevel, message: string) => Promise<void>;
  /** The pipeline a run executing in this process runs (its hooks are those of that version); read otherwise. */
  executingPipeline?: (runId: string) => Pipeline | undefined;
  /** Outbound HTTP; default the engine's SSRF-guarded client (no link-local or cloud-metadata addresses). */
  http?: HttpClient;
  timeoutMs?: number;
  retries?: number;
  retryBaseMs?: number;
}

/**
 * Delivers pipeline hooks: a JSON POST per matching enabled hook, 10 s timeout, up to 3 retries with exponential
 * backoff. Runs beside the run, never blocking it; each result is logged on the run (without header values).
 */
export class HookDispatcher {
  private readonly pending = new Set<Promise<void>>();
  private readonly unsubscribers: (() => void)[] = [];

  constructor(private readonly deps: HookDispatcherDeps) {}

  start(): void {
    const sub = <K extends keyof SluiceEventMap>(type: K, fn: (e: SluiceEventMap[K]) => void) => {
      this.deps.events.on(type, fn as never);
      this.unsubscribers.push(() => this.deps.events.off(type, fn as never));
    };
    sub("run.started", (e) =>
      this.dispatch("run.started", e.pipeline_id, { run_id: e.run_id, status: e.status, timestamp: e.timestamp }),
    );
    sub("run.completed", (e) =>
      this.dispatch("run.succeeded", e.pipeline_id, { run_id: e.run_id, status: e.status, timestamp: e.timestamp }),
    );
    sub("run.failed", (e) =>
      this.dispatch("run.failed", e.pipeline_id, {
        run_id: e.run_id,
        status: e.status,
        error: e.error ?? null,
        timestamp: e.timestamp,
      }),
    );
    sub("node.failed", (e) =>
      this.dispatch("node.failed", e.pipeline_id, {
        run_id: e.run_id,
        node_id: e.node_id,
        status: e.status,
        error: e.error,
        timestamp: e.timestamp,
      }),
    );
    sub("sla.missed", (e) =>
      this.dispatch("sla.missed", e.pipeline_id, { date: e.date, deadline: e.deadline, timestamp: e.timestamp }),
    );
  }

  async stop(): Promise<void> {
    for (const off of this.unsubscribers.splice(0)) off();
    await Promise.allSettled([...this.pending]);
  }

  /** Resolves when every delivery started so far has finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private dispatch(event: HookEvent, pipelineId: string, facts: Partial<HookPayload> & { timestamp: string }): void {
    const task = this.deliverAll(event, pipelineId, facts).catch((err: unknown) =>
      this.deps.logger.error("hook dispatch failed", {
        pipeline_id: pipelineId,
        event,
        error: err instanceof Error ? err.message : String(err),
      }),
    );
    this.pending.add(task);
    void task.finally(() => this.pending.delete(task));
  }

  private async deliverAll(
    event: HookEvent,
    pipelineId: string,
    facts: Partial<HookPayload> & { timestamp: string },
  ): Promise<void> {
    const executing = facts.run_id ? this.deps.executingPipeline?.(facts.run_id) : undefined;
    const pipeline = executing ?? (await this.deps.store.pipelines.get(pipelineId));
    if (!pipeline) return;
    // numbered as in the pipeline (1-based): logs name a hook by number and origin, never by its full URL
    const hooks = pipeline.hooks
      .map((hook, i) => ({ hook, number: i + 1 }))
      .filter(({ hook }) => hook.enabled && hook.event === event);
    if (hooks.length === 0) return;
    const payload: HookPayload = {
      event,
      pipeline_id: pipelineId,
      pipeline_name: pipeline.name,
      run_id: facts.run_id ?? null,
      node_id: facts.node_id ?? null,
      status: facts.status ?? null,
      error: facts.error ?? null,
      ...(facts.date ? { date: facts.date } : {}),
      ...(facts.deadline ? { deadline: facts.deadline } : {}),
      timestamp: facts.timestamp,
    };
    await Promise.all(hooks.map(({ hook, number }) => this.deliver(hook, number, payload)));
  }

  private async deliver(hook: Hook, number: number, payload: HookPayload): Promise<void> {
    const http = this.deps.http ?? defaultHttpClient();
    const retries = this.deps.retries ?? 3;
    const target = `#${number} (${hookOrigin(hook.url)})`;
    const scrubber = hookScrubber(hook);
    let lastError = "";
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await sleep((this.deps.retryBaseMs ?? 1000) * 2 ** (attempt - 1));
      try {
        const res = await http.request({
          method: "POST",
          url: hook.url,
          headers: { "content-type": "application/json", "user-agent": "sluice-hooks", ...hook.headers },
          body: JSON.stringify(hookBody(hook, payload)),
          signal: AbortSignal.timeout(this.deps.timeoutMs ?? 10_000),
        });
        if (res.status >= 200 && res.status < 300) {
          await this.record(
            payload,
            "info",
            `hook ${target} ${payload.event} delivered (HTTP ${res.status}, attempt ${attempt + 1})`,
          );
          return;
        }
        lastError = `HTTP ${res.status}`;
      } catch (err) {
        lastError = scrubber.scrub(
          err instanceof Error ? (err.name === "TimeoutError" ? "timed out" : err.message) : String(err),
        );
      }
    }
    await this.record(
      payload,
      "warning",
      `hook ${target} ${payload.event} failed after ${retries + 1} attempts: ${lastError}`,
    );
  }

  private async record(payload: HookPayload, level: LogLevel, message: string): Promise<void> {
    if (payload.run_id && this.deps.appendRunLog) {
      await this.deps.appendRunLog(payload.run_id, level, message).catch(() => undefined);
    }
    this.deps.logger[level === "warning" ? "warn" : "info"](message, { pipeline_id: payload.pipeline_id });
  }
}

/** Where a hook goes, for logs: the origin only, as a hook URL's path is often its secret (Slack webhooks). */
function hookOrigin(raw: string): string {
  try {
    return new URL(raw).origin;
  } catch {
    return "(invalid url)";
  }
}

/** Masks what a hook's own secrets look like in a delivery error: its URL path and query, its header values. */
function hookScrubber(hook: Hook): SecretScrubber {
  const scrubber = new SecretScrubber();
  try {
    const u = new URL(hook.url);
    if (u.pathname.length > 1) scrubber.add(u.pathname);
    scrubber.add(u.search.slice(1));
    scrubber.add(u.password);
  } catch {
    // an invalid URL fails before any request; nothing of it is sent
  }
  for (const value of Object.values(hook.headers ?? {})) scrubber.add(value);
  return scrubber;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
