import { z } from "zod";
import type { PipelineDefinition } from "./pipeline.js";

export interface PipelineVersion {
  version_id: string;
  version: number;
  message: string;
  created_at: string;
}

/** A pipeline definition as a version recorded it: never with the webhook token (a credential, not history). */
export type PipelineSnapshot = Omit<PipelineDefinition, "webhook_token">;

/** `GET /pipelines/{id}/versions/{version_id}`: one version with its full definition. */
export interface PipelineVersionDetail extends PipelineVersion {
  snapshot: PipelineSnapshot;
}

export const RollbackRequestSchema = z.object({ version_id: z.string().min(1, "version_id is required") }).strict();
