import { EMPTY_DATASET } from "../dataset.js";
import { describeUrl } from "../http/http-client.js";
import { nodeRequestSignal, resolveHttpTarget, sendChecked } from "../http/http-target.js";
import { defineNodeType } from "../node-type.js";
import { z } from "zod";
import { loose, httpTarget } from "./config-parts.js";
import { apiTarget } from "./references.js";

const DEFAULT_BATCH_SIZE = 100;

export const sinkApiConfig = loose({
  ...httpTarget,
  batch_size: z.number().int().min(1).max(100_000).optional(),
}).refine((c) => Boolean(c.url) || Boolean(c.conn_id), "url or conn_id is required");

/**
 * `sink_api`: sends the input rows as JSON arrays of at most `batch_size` rows (default 100), one request per batch.
 * A non-2xx answer fails the node (the executor retries per the node's settings). Passes its input through.
 */
export const sinkApiNode = defineNodeType({
  type: "sink_api",
  configSchema: sinkApiConfig,
  effects: true,
  references: (c) => ({ apisWritten: apiTarget(c) }),
  async run(ctx, config, inputs) {
    const input = inputs[0] ?? EMPTY_DATASET;
    const target = await resolveHttpTarget(ctx, config, "POST");
    const signal = nodeRequestSignal(ctx);
    const batchSize = config.batch_size ?? DEFAULT_BATCH_SIZE;
    let delivered = 0;
    for (let start = 0; start < input.rows.length; start += batchSize) {
      const batch = input.rows.slice(start, start + batchSize);
      await sendChecked(ctx, target, JSON.stringify(batch), signal);
      delivered += batch.length;
    }
    return {
      output: input,
      rowCount: delivered,
      summary: `delivered ${delivered} rows to ${describeUrl(target.url)} in batches of ${batchSize}`,
    };
  },
});
