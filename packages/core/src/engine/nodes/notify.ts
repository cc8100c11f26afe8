import { dataSetFromRows, EMPTY_DATASET } from "../dataset.js";
import { describeUrl } from "../http/http-client.js";
import { nodeRequestSignal, resolveHttpTarget, sendChecked } from "../http/http-target.js";
import { defineNodeType, type NodeContext } from "../node-type.js";
import { z } from "zod";
import { loose, httpTarget } from "./config-parts.js";
import { apiTarget } from "./references.js";

const DEFAULT_MESSAGE = "Pipeline {{pipeline}} run {{run_id}}: {{row_count}} rows";

/** Run facts a message may name as `{{key}}` (after `${...}` placeholders are rendered). */
function runFacts(ctx: NodeContext, rowCount: number): Record<string, string> {
  return {
    pipeline: ctx.pipelineName,
    pipeline_id: ctx.pipelineId,
    run_id: ctx.runId,
    node_id: ctx.node.id,
    row_count: String(rowCount),
  };
}

function fillFacts(text: string, facts: Record<string, string>): string {
  return text.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (whole, key: string) =>
    Object.hasOwn(facts, key) ? facts[key]! : whole,
  );
}

export const notifyConfig = loose({
  ...httpTarget,
  message: z.string().optional(),
  format: z.enum(["webhook", "slack"]).optional(),
  type: z.enum(["webhook", "slack"]).optional(),
}).refine((c) => Boolean(c.url) || Boolean(c.conn_id), "url or conn_id is required");

/**
 * `notify`: posts a message to a webhook (`{text, pipeline_id, pipeline, run_id, node_id, row_count}`) or a
 * Slack-compatible endpoint (`{text}`), then passes its input through.
 */
export const notifyNode = defineNodeType({
  type: "notify",
  configSchema: notifyConfig,
  effects: true,
  references: (c) => ({ apisWritten: apiTarget(c) }),
  async run(ctx, config, inputs) {
    const rowCount = inputs.reduce((n, d) => n + d.rows.length, 0);
    const output = inputs.length <= 1 ? (inputs[0] ?? EMPTY_DATASET) : dataSetFromRows(inputs.flatMap((d) => d.rows));
    const facts = runFacts(ctx, rowCount);
    const text = fillFacts(await ctx.render(config.message ?? DEFAULT_MESSAGE), facts);
    const format = config.format ?? config.type ?? "webhook";
    const payload =
      format === "slack"
        ? { text }
        : {
            text,
            pipeline_id: ctx.pipelineId,
            pipeline: ctx.pipelineName,
            run_id: ctx.runId,
            node_id: ctx.node.id,
            row_count: rowCount,
          };
    const target = await resolveHttpTarget(ctx, config, "POST");
    await sendChecked(ctx, target, JSON.stringify(payload), nodeRequestSignal(ctx));
    return { output, rowCount, summary: `sent ${format} notification to ${describeUrl(target.url)}` };
  },
});
