import { z } from "zod";
import { HookSchema } from "./hook.js";
import { EdgeSchema, NodeSchema } from "./node.js";

/** Fields the server sets; accepted in request bodies (so a fetched pipeline can be sent back) and ignored. */
const READ_ONLY_FIELDS = {
  id: z.unknown().optional(),
  created_at: z.unknown().optional(),
  updated_at: z.unknown().optional(),
  node_count: z.unknown().optional(),
  edge_count: z.unknown().optional(),
  version: z.unknown().optional(),
};

/** Shortest webhook_token accepted: it is the only credential of the webhook trigger. */
export const WEBHOOK_TOKEN_MIN_LENGTH = 16;

/** A credential: at least WEBHOOK_TOKEN_MIN_LENGTH characters; `""` or null clears it. */
const WebhookTokenSchema = z
  .string()
  .max(255)
  .refine((v) => v === "" || v.length >= WEBHOOK_TOKEN_MIN_LENGTH, {
    error: `webhook_token must be at least ${WEBHOOK_TOKEN_MIN_LENGTH} characters (empty or null clears it)`,
  })
  .nullable();

/**
 * Structural shape of the editable pipeline fields. Rules that need the whole graph (duplicate ids, cycles, cron,
 * time zones, limits) live in `dag/validate-pipeline.ts` so they can be reported as a list of errors.
 */
export const pipelineFields = {
  name: z.string({ error: "name must be a string" }),
  description: z.string().max(10_000).default(""),
  schedule: z.string().nullable().default(null),
  schedule_timezone: z.string().nullable().default(null),
  enabled: z.boolean().default(true),
  tags: z.array(z.string().max(100)).max(100).default([]),
  params: z.record(z.string(), z.string()).default({}),
  nodes: z.array(NodeSchema).default([]),
  edges: z.array(EdgeSchema).default([]),
  hooks: z.array(HookSchema).default([]),
  depends_on: z.array(z.string()).default([]),
  sla_deadline: z.string().nullable().default(null),
  sla_timezone: z.string().nullable().default(null),
  webhook_token: WebhookTokenSchema.default(null),
  /** Node parallelism within a wave for this pipeline; the global default applies when null. */
  parallelism: z.number().int().min(1).max(64).nullable().default(null),
};

export const PipelineCreateSchema = z.object({ ...pipelineFields, ...READ_ONLY_FIELDS }).strict();
export type PipelineCreate = z.input<typeof PipelineCreateSchema>;
export type PipelineDefinition = Omit<z.infer<typeof PipelineCreateSchema>, keyof typeof READ_ONLY_FIELDS>;

/** A partial update: only the given fields change. */
export const PipelineUpdateSchema = z
  .object({
    name: pipelineFields.name.optional(),
    description: z.string().max(10_000).optional(),
    schedule: z.string().nullable().optional(),
    schedule_timezone: z.string().nullable().optional(),
    enabled: z.boolean().optional(),
    tags: z.array(z.string().max(100)).max(100).optional(),
    params: z.record(z.string(), z.string()).optional(),
    nodes: z.array(NodeSchema).optional(),
    edges: z.array(EdgeSchema).optional(),
    hooks: z.array(HookSchema).optional(),
    depends_on: z.array(z.string()).optional(),
    sla_deadline: z.string().nullable().optional(),
    sla_timezone: z.string().nullable().optional(),
    webhook_token: WebhookTokenSchema.optional(),
    parallelism: z.number().int().min(1).max(64).nullable().optional(),
    ...READ_ONLY_FIELDS,
  })
  .strict();
export type PipelineUpdate = z.input<typeof PipelineUpdateSchema>;

export interface Pipeline extends PipelineDefinition {
  id: string;
  created_at: string;
  updated_at: string;
}

export interface PipelineSummary {
  id: string;
  name: string;
  description: string;
  schedule: string | null;
  enabled: boolean;
  tags: string[];
  node_count: number;
  edge_count: number;
  created_at: string;
  updated_at: string;
}

/** `GET /pipelines/{id}/export` document; import also accepts a bare pipeline object. */
export const EXPORT_FORMAT_VERSION = 1;
export interface PipelineExport {
  sluice_export: typeof EXPORT_FORMAT_VERSION;
  exported_at: string;
  pipeline: Omit<PipelineDefinition, "webhook_token">;
}

export const PipelineImportSchema = z.union([
  z
    .object({
      sluice_export: z.literal(EXPORT_FORMAT_VERSION),
      exported_at: z.string().optional(),
      pipeline: PipelineCreateSchema,
    })
    .strict(),
  PipelineCreateSchema,
]);

export interface ValidationResult {
  valid: boolean;
  errors: string[];
  warnings: string[];
}

export const ValidateNodesRequestSchema = z
  .object({
    /** Nodes to check; when absent, the stored pipeline's nodes. */
    nodes: z.array(NodeSchema).max(500).optional(),
    /** Restrict the check to these stored node ids. */
    node_ids: z.array(z.string()).max(500).optional(),
  })
  .strict();
export type ValidateNodesRequest = z.input<typeof ValidateNodesRequestSchema>;

export interface NodeValidationResult {
  node_id: string;
  type: string;
  valid: boolean;
  errors: string[];
  warnings: string[];
}

export interface ValidateNodesResponse {
  valid: boolean;
  nodes: NodeValidationResult[];
}

export const BULK_ACTIONS = ["delete", "enable", "disable"] as const;
export const BulkRequestSchema = z
  .object({
    action: z.string(),
    ids: z.array(z.string()).min(1, "ids must not be empty").max(100, "at most 100 ids per bulk request"),
  })
  .strict();
export type BulkRequest = z.input<typeof BulkRequestSchema>;
export interface BulkResponse {
  action: (typeof BULK_ACTIONS)[number];
  succeeded: string[];
  failed: string[];
  errors: { id: string; error: string }[];
}
