import type { z } from "zod";
import { SluiceError } from "./errors.js";

/** One human-readable line per zod issue (at most 10): `nodes.0.id: must not be empty`. */
export function issueLines(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.slice(0, 10).map((issue) => {
    const where = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      const keys = (issue as { keys: string[] }).keys.join(", ");
      return `${where ? `${where}: ` : ""}unknown field(s): ${keys}`;
    }
    return where ? `${where}: ${issue.message}` : issue.message;
  });
}

/** Human-readable one-line summary of zod issues: `nodes.0.id: must not be empty; name: …`. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issueLines(issues).join("; ");
}

/** Parses input with a zod schema or throws a 400 SluiceError carrying the issues. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what = "request body"): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new SluiceError("bad_request", `invalid ${what}: ${describeIssues(result.error.issues)}`, {
    // `errors` as for semantic pipeline validation (DESIGN §3): one "path: message" line per issue
    errors: issueLines(result.error.issues),
    details: result.error.issues.map((i) => ({ path: i.path.map(String), message: i.message, code: i.code })),
  });
}
