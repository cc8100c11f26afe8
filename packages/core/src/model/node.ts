import { z } from "zod";

/**
 * The fifteen built-in node types (docs/nodes.md): the names the API contract and the client's typed builders know.
 * Each is one definition in the engine's registry (`engine/nodes/index.ts`, checked against this list by the
 * compiler). An embedder may register more with `createSluice({ nodeTypes })`, so a node's `type` is a string
 * checked against the registry of the instance that stores or runs it.
 */
export const NODE_TYPES = [
  "source_db",
  "source_api",
  "source_file",
  "transform",
  "join",
  "union",
  "sql",
  "code",
  "quality",
  "condition",
  "sink_db",
  "sink_file",
  "sink_api",
  "migrate",
  "notify",
] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export const PositionSchema = z.object({ x: z.number(), y: z.number() });

/** Per-node execution settings; accepted on the node object or inside its `config` (docs/nodes.md). */
export const ExecutionSettingsSchema = z.object({
  max_retries: z.number().int().min(0).max(100).optional(),
  retry_delay: z.number().min(0).max(3600).optional(),
  timeout: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3600)
    .optional(),
});
export type ExecutionSettings = z.infer<typeof ExecutionSettingsSchema>;

export const NodeSchema = z
  .object({
    id: z.string().min(1, "node id must not be empty").max(128, "node id is at most 128 characters"),
    /** A free string here: validation checks it against the node types the instance knows (400 when unknown). */
    type: z.string().min(1, "node type must not be empty"),
    name: z.string().max(255).optional(),
    config: z.record(z.string(), z.unknown()).default({}),
    position: PositionSchema.optional(),
  })
  .extend(ExecutionSettingsSchema.shape)
  .strict();
export type PipelineNode = z.infer<typeof NodeSchema>;
export type PipelineNodeInput = z.input<typeof NodeSchema>;

export const EdgeSchema = z.object({ from: z.string().min(1), to: z.string().min(1) }).strict();
export type Edge = z.infer<typeof EdgeSchema>;
