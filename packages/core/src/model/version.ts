import { z } from "zod";

export interface PipelineVersion {
  version_id: string;
  version: number;
  message: string;
  created_at: string;
}

export const RollbackRequestSchema = z.object({ version_id: z.string().min(1, "version_id is required") }).strict();
