import { z } from "zod";

export const VARIABLE_TYPES = ["string", "secret"] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];

import { VARIABLE_KEY_PATTERN } from "./input-rules.js";

export { VARIABLE_KEY_PATTERN };

export interface Variable {
  key: string;
  value: string;
  type: VariableType;
  created_at: string;
  updated_at: string;
}

/** Values up to 1 MiB. */
export const VARIABLE_VALUE_MAX_BYTES = 1024 * 1024;

const value = z
  .string({ error: "value must be a string" })
  .refine((v) => new TextEncoder().encode(v).length <= VARIABLE_VALUE_MAX_BYTES, "value must be at most 1 MiB");

export const VariableKeySchema = z
  .string()
  .regex(
    VARIABLE_KEY_PATTERN,
    "key must start with a letter or _ and hold only letters, digits, _ . - (at most 128 characters)",
  );

export const VariableUpsertSchema = z
  .object({
    key: VariableKeySchema,
    value,
    /** Absent: a new variable is a `string`, an existing one keeps its type. */
    type: z.enum(VARIABLE_TYPES, { error: "type must be string or secret" }).optional(),
    created_at: z.unknown().optional(),
    updated_at: z.unknown().optional(),
  })
  .strict();
export type VariableUpsert = z.input<typeof VariableUpsertSchema>;

/** PUT: the key comes from the path (a body key, if given, must match); value `********` keeps a secret. */
export const VariableUpdateSchema = VariableUpsertSchema.extend({ key: VariableKeySchema.optional() }).strict();
