import { CronExpressionParser } from "cron-parser";
import { IANAZone } from "luxon";
import { lookupNodeType, type NodeTypeRegistry } from "../engine/node-type.js";
import { NODE_TYPE_REGISTRY } from "../engine/nodes/index.js";
import type { PipelineNode } from "../model/node.js";
import type { PipelineDefinition, ValidationResult } from "../model/pipeline.js";
import { topologicalWaves } from "./graph.js";

export const MAX_PIPELINE_NAME = 255;
export const MAX_NODES = 500;
const HH_MM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

export function isValidTimezone(tz: string): boolean {
  return IANAZone.isValidZone(tz);
}

/** Returns an error message for a cron expression, or null when it is a valid standard 5-field expression. */
export function cronError(expr: string, tz?: string | null): string | null {
  const fields = expr.trim().split(/\s+/);
  if (fields.length !== 5) return `invalid cron expression '${expr}': expected 5 fields, got ${fields.length}`;
  const weekdayError = dayOfWeekError(fields[4] as string);
  if (weekdayError) return `invalid cron expression '${expr}': ${weekdayError}`;
  try {
    CronExpressionParser.parse(expr, { tz: tz && isValidTimezone(tz) ? tz : "UTC", strict: false });
    return null;
  } catch (e) {
    return `invalid cron expression '${expr}': ${(e as Error).message}`;
  }
}

/** Day of week is 0-6 with Sunday = 0 (SPEC part 1); cron-parser would also take 7. Step values are not days. */
function dayOfWeekError(field: string): string | null {
  for (const part of field.split(",")) {
    const [range = ""] = part.split("/");
    for (const value of range.split("-")) {
      if (/^\d+$/.test(value) && Number(value) > 6) return `day of week ${value} is out of range (0-6, Sunday = 0)`;
    }
  }
  return null;
}

type Definition = Pick<
  PipelineDefinition,
  | "name"
  | "nodes"
  | "edges"
  | "schedule"
  | "schedule_timezone"
  | "sla_deadline"
  | "sla_timezone"
  | "params"
  | "depends_on"
>;

/**
 * The rules that make a pipeline unstorable (SPEC part 7): each violation is one message in `errors`. A node type
 * is known when `registry` (the built-in types, or those of a Sluice instance with its `nodeTypes`) has it.
 * Never throws, whatever the input.
 */
export function structuralErrors(def: Definition, registry: NodeTypeRegistry = NODE_TYPE_REGISTRY): string[] {
  const errors: string[] = [];
  const name = def.name.trim();
  if (name.length === 0) errors.push("name must not be empty");
  // characters, not UTF-16 code units: an emoji counts once
  if ([...def.name].length > MAX_PIPELINE_NAME) errors.push(`name must be at most ${MAX_PIPELINE_NAME} characters`);
  if (def.nodes.length > MAX_NODES) errors.push(`a pipeline has at most ${MAX_NODES} nodes (got ${def.nodes.length})`);

  const ids = new Set<string>();
  const duplicates = new Set<string>();
  for (const node of def.nodes) {
    if (ids.has(node.id)) duplicates.add(node.id);
    ids.add(node.id);
  }
  for (const id of duplicates) errors.push(`duplicate node id '${id}'`);

  for (const node of def.nodes) {
    if (!lookupNodeType(registry, node.type)) {
      errors.push(
        `node '${node.id}': unknown node type '${node.type}' (expected one of ${Object.keys(registry).join(", ")})`,
      );
    }
  }
  // an edge given twice would feed its node the same input twice (each copy multiplying a union's rows)
  const edgeCounts = new Map<string, { from: string; to: string; count: number }>();
  for (const [i, edge] of def.edges.entries()) {
    if (!ids.has(edge.from)) errors.push(`edge ${i} references missing node '${edge.from}'`);
    if (!ids.has(edge.to)) errors.push(`edge ${i} references missing node '${edge.to}'`);
    if (edge.from === edge.to) errors.push(`edge ${i} connects node '${edge.from}' to itself`);
    const key = JSON.stringify([edge.from, edge.to]);
    const seen = edgeCounts.get(key) ?? { from: edge.from, to: edge.to, count: 0 };
    seen.count++;
    edgeCounts.set(key, seen);
  }
  for (const { from, to, count } of edgeCounts.values())
    if (count > 1) errors.push(`edge '${from}' → '${to}' is given ${count} times (at most once)`);
  if (duplicates.size === 0 && def.nodes.length <= MAX_NODES) {
    const waves = topologicalWaves({
      nodeIds: def.nodes.map((n) => n.id),
      edges: def.edges.filter((e) => e.from !== e.to),
    });
    if (!waves.ok) errors.push(`the graph has a cycle through nodes: ${waves.cycle.join(", ")}`);
  }

  if (def.schedule_timezone != null && !isValidTimezone(def.schedule_timezone)) {
    errors.push(`invalid timezone '${def.schedule_timezone}' in schedule_timezone`);
  }
  if (def.schedule != null && def.schedule.trim() !== "") {
    const err = cronError(def.schedule, def.schedule_timezone);
    if (err) errors.push(err);
  }
  if (def.sla_deadline != null && def.sla_deadline !== "" && !HH_MM.test(def.sla_deadline)) {
    errors.push(`invalid sla_deadline '${def.sla_deadline}': expected HH:MM (00:00 to 23:59)`);
  }
  if (def.sla_timezone != null && !isValidTimezone(def.sla_timezone)) {
    errors.push(`invalid timezone '${def.sla_timezone}' in sla_timezone`);
  }
  return errors;
}

/** Config errors of one node against its type's schema. */
export function nodeConfigErrors(
  node: Pick<PipelineNode, "id" | "type" | "config">,
  registry: NodeTypeRegistry = NODE_TYPE_REGISTRY,
): string[] {
  const def = lookupNodeType(registry, node.type);
  if (!def) return [`node '${node.id}': unknown node type '${node.type}'`];
  const parsed = def.configSchema.safeParse(node.config ?? {});
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => {
    const path = issue.path.length > 0 ? `config.${issue.path.join(".")}: ` : "config: ";
    return `node '${node.id}' (${node.type}): ${path}${issue.message}`;
  });
}

const PARAM_REF = /\$\{param\.([A-Za-z0-9_.-]+)\}/g;

/** Warnings: nodes that lead nowhere (a node with effects may end a branch), unused params, an empty pipeline. */
export function pipelineWarnings(def: Definition, registry: NodeTypeRegistry = NODE_TYPE_REGISTRY): string[] {
  const warnings: string[] = [];
  if (def.nodes.length === 0) warnings.push("the pipeline has no nodes");
  const hasDownstream = new Set(def.edges.map((e) => e.from));
  for (const node of def.nodes) {
    if (!hasDownstream.has(node.id) && !lookupNodeType(registry, node.type)?.effects) {
      warnings.push(`node '${node.id}' has no downstream connections`);
    }
  }
  const serialized = JSON.stringify(def.nodes);
  const used = new Set([...serialized.matchAll(PARAM_REF)].map((m) => m[1]));
  for (const key of Object.keys(def.params)) {
    if (!used.has(key)) warnings.push(`param '${key}' is not used by any node`);
  }
  return warnings;
}

/** Full validation of a definition, as `GET /pipelines/{id}/validate` reports it (and a trigger refuses). */
export function validatePipelineDefinition(
  def: Definition,
  extraErrors: string[] = [],
  registry: NodeTypeRegistry = NODE_TYPE_REGISTRY,
): ValidationResult {
  const errors = [...structuralErrors(def, registry)];
  for (const node of def.nodes) {
    // an unknown type is already one structural error
    if (lookupNodeType(registry, node.type)) errors.push(...nodeConfigErrors(node, registry));
  }
  errors.push(...extraErrors);
  return { valid: errors.length === 0, errors, warnings: pipelineWarnings(def, registry) };
}
