import { z } from "zod";

export const CONNECTION_TYPES = ["postgres", "mysql", "sqlite", "http", "sftp", "s3", "generic"] as const;
export type ConnectionType = (typeof CONNECTION_TYPES)[number];

import { CONN_ID_PATTERN, MASKED_SECRET } from "./input-rules.js";

export { CONN_ID_PATTERN, MASKED_SECRET };

export interface Connection {
  id: string;
  conn_id: string;
  type: ConnectionType;
  host: string;
  port: number | null;
  schema: string;
  login: string;
  password: string;
  extra?: string;
  created_at: string;
  updated_at: string;
}

export interface ConnectionTypeInfo {
  type: ConnectionType;
  label: string;
  fields: string[];
}

export interface ConnectionTestResult {
  success: boolean;
  message?: string;
  driver?: string;
  error?: string;
}

const extraField = z
  .union([z.string(), z.record(z.string(), z.unknown())], { error: "extra must be a JSON string or an object" })
  .transform((v, ctx) => {
    if (typeof v !== "string") return JSON.stringify(v);
    if (v.trim() === "") return "";
    try {
      const parsed: unknown = JSON.parse(v);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
    } catch {
      ctx.addIssue({ code: "custom", message: "extra must be a JSON object (as a string)" });
    }
    return v;
  });

const connectionFields = {
  type: z.enum(CONNECTION_TYPES, { error: `type must be one of ${CONNECTION_TYPES.join(", ")}` }),
  host: z.string().max(1024).default(""),
  port: z.number().int().min(0).max(65535).nullable().optional(),
  schema: z.string().max(255).default(""),
  login: z.string().max(255).default(""),
  password: z.string().max(10_000).optional(),
  extra: extraField.optional(),
};

export const ConnectionCreateSchema = z
  .object({
    conn_id: z
      .string({ error: "conn_id is required" })
      .regex(
        CONN_ID_PATTERN,
        "conn_id must be a slug: lowercase letters, digits, _ and -, starting with a letter or digit, at most 63 characters",
      ),
    ...connectionFields,
    id: z.unknown().optional(),
    created_at: z.unknown().optional(),
    updated_at: z.unknown().optional(),
  })
  .strict();
export type ConnectionCreate = z.input<typeof ConnectionCreateSchema>;

/** PUT: the conn_id comes from the path; omitted fields keep their values; password `********` or omitted keeps it. */
export const ConnectionUpdateSchema = z
  .object({
    conn_id: z.string().optional(),
    type: connectionFields.type.optional(),
    host: z.string().max(1024).optional(),
    port: connectionFields.port,
    schema: z.string().max(255).optional(),
    login: z.string().max(255).optional(),
    password: connectionFields.password,
    extra: connectionFields.extra,
    id: z.unknown().optional(),
    created_at: z.unknown().optional(),
    updated_at: z.unknown().optional(),
  })
  .strict();
export type ConnectionUpdate = z.input<typeof ConnectionUpdateSchema>;
