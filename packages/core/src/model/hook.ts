import { z } from "zod";

export const HOOK_EVENTS = ["run.started", "run.succeeded", "run.failed", "node.failed", "sla.missed"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

export const HookSchema = z
  .object({
    event: z.enum(HOOK_EVENTS),
    type: z.enum(["webhook", "slack"]).default("webhook"),
    url: z.url({ protocol: /^https?$/, error: "hook url must be an http(s) URL" }),
    headers: z.record(z.string(), z.string()).optional(),
    enabled: z.boolean().default(true),
  })
  .strict();
export type Hook = z.infer<typeof HookSchema>;
