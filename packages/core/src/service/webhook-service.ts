import { createHash, timingSafeEqual } from "node:crypto";
import type { Clock } from "../clock.js";
import { notFound, SluiceError } from "../errors.js";
import { WEBHOOK_TOKEN_MIN_LENGTH } from "../model/pipeline.js";
import { WebhookBodySchema, type WebhookAccepted } from "../model/run.js";
import type { Store } from "../store/ports.js";
import { parseInput } from "../validation.js";

export const WEBHOOK_RATE_WINDOW_MS = 10_000;
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

export interface WebhookRequest {
  token: string | undefined;
  body: unknown;
  idempotencyKey?: string | undefined;
}

export interface WebhookServiceDeps {
  store: Store;
  clock: Clock;
  /** Queues a run with trigger `webhook`. */
  trigger(pipelineId: string, params: Record<string, string>): Promise<{ id: string; status: string }>;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest();

function sameToken(given: string, expected: string): boolean {
  return timingSafeEqual(sha256(given), sha256(expected));
}

/**
 * Inbound webhook triggers (SPEC part 4): the pipeline's own token, one accepted trigger per pipeline per 10 s, and an
 * optional Idempotency-Key that returns the same run for a repeat within 24 h.
 */
export class WebhookService {
  /** Triggers with an idempotency key being accepted now, by key. */
  private readonly accepting = new Map<string, Promise<WebhookAccepted>>();

  constructor(private readonly deps: WebhookServiceDeps) {}

  async trigger(pipelineId: string, request: WebhookRequest): Promise<WebhookAccepted> {
    const pipeline = await this.deps.store.pipelines.get(pipelineId);
    if (!pipeline) throw notFound("pipeline", pipelineId);
    if (!pipeline.webhook_token)
      throw new SluiceError("forbidden", "webhook triggering is not configured for this pipeline (set webhook_token)");
    // a token stored before the length rule is too easy to guess to count as configured
    if (pipeline.webhook_token.length < WEBHOOK_TOKEN_MIN_LENGTH) {
      throw new SluiceError(
        "forbidden",
        `this pipeline's webhook_token is shorter than ${WEBHOOK_TOKEN_MIN_LENGTH} characters; set a longer one`,
      );
    }
    if (!request.token)
      throw new SluiceError("unauthorized", "missing webhook token (query parameter token or header X-Webhook-Token)");
    if (!sameToken(request.token, pipeline.webhook_token))
      throw new SluiceError("unauthorized", "invalid webhook token");
    const { params = {} } = parseInput(WebhookBodySchema, request.body ?? {});
    const now = this.deps.clock.now();

    const given = request.idempotencyKey?.trim();
    // a long key is kept as its digest (cut, two keys sharing their first 200 characters were one)
    const key = given
      ? `${pipelineId}:${given.length <= 200 ? given : `sha256:${sha256(given).toString("base64")}`}`
      : null;
    if (!key) return this.accept(pipelineId, params, null, now);
    // a repeat arriving while the first is still being accepted gets its answer (it would find no run yet, and then
    // meet the rate limit the first just took)
    const pending = this.accepting.get(key);
    if (pending) return pending;
    const accepted = this.accept(pipelineId, params, key, now);
    this.accepting.set(key, accepted);
    try {
      return await accepted;
    } finally {
      this.accepting.delete(key);
    }
  }

  private async accept(
    pipelineId: string,
    params: Record<string, string>,
    key: string | null,
    now: Date,
  ): Promise<WebhookAccepted> {
    if (key) {
      const earlier = await this.deps.store.webhooks.findRunByIdempotencyKey(
        key,
        new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS),
      );
      if (earlier) return { run_id: earlier.id, pipeline_id: earlier.pipeline_id, status: earlier.status };
    }
    const claim = await this.deps.store.webhooks.claimTrigger(pipelineId, now, WEBHOOK_RATE_WINDOW_MS);
    if (!claim.accepted) {
      throw new SluiceError("rate_limited", "webhook rate limit: one trigger per pipeline per 10 seconds", {
        retryAfterSeconds: claim.retryAfterMs / 1000,
      });
    }
    // a trigger refused (an invalid graph: 422) was not accepted, and does not count toward the rate limit
    const run = await this.deps.trigger(pipelineId, params).catch(async (e: unknown) => {
      await this.deps.store.webhooks.releaseTrigger(pipelineId, now);
      throw e;
    });
    if (key) await this.deps.store.webhooks.tagRun(run.id, key);
    return { run_id: run.id, pipeline_id: pipelineId, status: run.status };
  }
}
