import type { Knex } from "knex";
import type { WebhookStore } from "../ports.js";
import { toStr } from "./rows.js";

/** The last accepted trigger of a pipeline that has had none. */
const NEVER = "1970-01-01T00:00:00.000Z";

export function createWebhookStore(knex: Knex): WebhookStore {
  return {
    async claimTrigger(pipelineId, now, windowMs) {
      const nowIso = now.toISOString();
      const threshold = new Date(now.getTime() - windowMs).toISOString();
      await knex("webhook_state")
        .insert({ pipeline_id: pipelineId, last_accepted_at: NEVER })
        .onConflict("pipeline_id")
        .ignore();
      const changed = await knex("webhook_state")
        .where({ pipeline_id: pipelineId })
        .andWhere("last_accepted_at", "<=", threshold)
        .update({ last_accepted_at: nowIso });
      if (changed > 0) return { accepted: true, retryAfterMs: 0 };
      const row = (await knex("webhook_state").where({ pipeline_id: pipelineId }).first()) as
        { last_accepted_at: string } | undefined;
      const last = row ? Date.parse(row.last_accepted_at) : now.getTime();
      return { accepted: false, retryAfterMs: Math.max(1000, last + windowMs - now.getTime()) };
    },
    async releaseTrigger(pipelineId, now) {
      // before the claim the time there was at least a window old: any time that old is the same to later claims
      await knex("webhook_state")
        .where({ pipeline_id: pipelineId, last_accepted_at: now.toISOString() })
        .update({ last_accepted_at: NEVER });
    },
    async findRunByIdempotencyKey(key, since) {
      const row = (await knex("runs")
        .select("id", "pipeline_id", "status")
        .where({ idempotency_key: key })
        .andWhere("created_at", ">=", since.toISOString())
        .orderBy("created_at", "desc")
        .first()) as Record<string, unknown> | undefined;
      return row ? { id: toStr(row.id), pipeline_id: toStr(row.pipeline_id), status: toStr(row.status) } : null;
    },
    async tagRun(runId, key) {
      await knex("runs").where({ id: runId }).update({ idempotency_key: key });
    },
  };
}
