import { OPERATIONS, type OperationId } from "@sluice/core";

const accessText = (access: string) =>
  access === "public" ? "open" : access === "webhook" ? "open (webhook token)" : `\`${access}\``;

/** The route permission table of docs/auth.md, generated from the operation table (`npm run docs` writes it). */
export function permissionReference(prefix = "/api"): string {
  const rows = (Object.keys(OPERATIONS) as OperationId[]).map((id) => {
    const spec = OPERATIONS[id];
    const path = "root" in spec ? spec.path : `${prefix}${spec.path}`;
    return `| ${spec.method} | \`${path}\` | ${accessText(spec.access)} | ${spec.summary.replaceAll("|", "\\|")} |`;
  });
  return ["| Method | Path | Needs | What it does |", "|---|---|---|---|", ...rows].join("\n");
}
