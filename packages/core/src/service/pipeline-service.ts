import { nowIso, type Clock } from "../clock.js";
import type { NodeTypeRegistry } from "../engine/node-type.js";
import { nodeReferences } from "../insights/node-references.js";
import type { PipelineNode } from "../model/node.js";
import { nodeConfigErrors, structuralErrors, validatePipelineDefinition } from "../dag/validate-pipeline.js";
import { notFound, SluiceError } from "../errors.js";
import type { SluiceEvents } from "../events.js";
import { newId } from "../ids.js";
import type { Page, PaginationQuery } from "../model/common.js";
import { PER_PAGE_DEFAULT } from "../model/common.js";
import {
  BULK_ACTIONS,
  BulkRequestSchema,
  EXPORT_FORMAT_VERSION,
  PipelineCreateSchema,
  PipelineImportSchema,
  PipelineUpdateSchema,
  ValidateNodesRequestSchema,
  type BulkRequest,
  type BulkResponse,
  type NodeValidationResult,
  type Pipeline,
  type PipelineCreate,
  type PipelineDefinition,
  type PipelineExport,
  type PipelineSummary,
  type PipelineUpdate,
  type ValidateNodesRequest,
  type ValidateNodesResponse,
  type ValidationResult,
} from "../model/pipeline.js";
import type { PipelineSnapshot, PipelineVersion, PipelineVersionDetail } from "../model/version.js";
import type { Store } from "../store/ports.js";
import { parseInput } from "../validation.js";

export interface PipelineServiceDeps {
  store: Store;
  events: SluiceEvents;
  clock: Clock;
  /** The node types pipelines may use: the built-in ones and the instance's `nodeTypes`. */
  nodeTypes: NodeTypeRegistry;
}

/** Strips server-owned fields from a parsed create/update body. */
function definitionOf(parsed: Record<string, unknown>): PipelineDefinition {
  const { id: _i, created_at: _c, updated_at: _u, node_count: _n, edge_count: _e, version: _v, ...rest } = parsed;
  return rest as unknown as PipelineDefinition;
}

function normalize(def: PipelineDefinition): PipelineDefinition {
  return {
    ...def,
    name: def.name.trim(),
    schedule: def.schedule?.trim() ? def.schedule.trim() : null,
    sla_deadline: def.sla_deadline?.trim() ? def.sla_deadline.trim() : null,
    webhook_token: def.webhook_token === "" ? null : def.webhook_token,
    depends_on: [...new Set(def.depends_on)],
  };
}

export class PipelineService {
  constructor(private readonly deps: PipelineServiceDeps) {}

  private now(): string {
    return nowIso(this.deps.clock);
  }

  /** Plain array without a page request; the pagination envelope with one (docs/http.md). */
  async list(query: PaginationQuery = {}): Promise<PipelineSummary[] | Page<PipelineSummary>> {
    if (query.page === undefined && query.per_page === undefined) {
      return (await this.deps.store.pipelines.list()).items;
    }
    const page = query.page ?? 1;
    const per_page = query.per_page ?? PER_PAGE_DEFAULT;
    const { items, total } = await this.deps.store.pipelines.list({ page, per_page });
    return { items, total, page, per_page, pages: Math.ceil(total / per_page) };
  }

  async get(id: string): Promise<Pipeline> {
    const pipeline = await this.deps.store.pipelines.get(id);
    if (!pipeline) throw notFound("pipeline", id);
    return pipeline;
  }

  async create(input: PipelineCreate | unknown, message = "created"): Promise<Pipeline> {
    const def = normalize(definitionOf(parseInput(PipelineCreateSchema, input, "pipeline")));
    await this.assertStorable(def, null);
    const now = this.now();
    const pipeline: Pipeline = { id: newId(), ...def, created_at: now, updated_at: now };
    await this.deps.store.pipelines.insert(pipeline, { version_id: newId(), message, created_at: now });
    this.deps.events.emit("pipeline.changed", { pipeline_id: pipeline.id, action: "created", timestamp: now });
    return pipeline;
  }

  async update(id: string, input: PipelineUpdate | unknown): Promise<Pipeline> {
    const patch = definitionOf(parseInput(PipelineUpdateSchema, input, "pipeline update"));
    const current = await this.get(id);
    const { id: _id, created_at: _c, updated_at: _u, ...currentDef } = current;
    const cleanPatch = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    const def = normalize({ ...currentDef, ...cleanPatch } as PipelineDefinition);
    return this.replace(current, def, describeChange(Object.keys(cleanPatch)));
  }

  /** Stores `def` as `current`'s new version. */
  private async replace(current: Pipeline, def: PipelineDefinition, message: string): Promise<Pipeline> {
    const { id, created_at: createdAt } = current;
    await this.assertStorable(def, id, current.depends_on);
    const now = this.now();
    const pipeline: Pipeline = { id, ...def, created_at: createdAt, updated_at: now };
    const ok = await this.deps.store.pipelines.update(pipeline, { version_id: newId(), message, created_at: now });
    if (!ok) throw notFound("pipeline", id);
    this.deps.events.emit("pipeline.changed", { pipeline_id: id, action: "updated", timestamp: now });
    return pipeline;
  }

  async delete(id: string): Promise<void> {
    if (!(await this.deps.store.pipelines.delete(id))) throw notFound("pipeline", id);
    this.deps.events.emit("pipeline.changed", { pipeline_id: id, action: "deleted", timestamp: this.now() });
  }

  async clone(id: string): Promise<Pipeline> {
    const { id: _id, created_at: _c, updated_at: _u, ...def } = await this.get(id);
    const name = `${def.name} (Copy)`;
    if ([...name].length > 255)
      throw new SluiceError("invalid", "the cloned name would exceed 255 characters", {
        errors: ["name must be at most 255 characters"],
      });
    return this.create({ ...def, name, enabled: false, webhook_token: null }, `cloned from ${id}`);
  }

  async export(id: string): Promise<PipelineExport> {
    const { id: _id, created_at: _c, updated_at: _u, webhook_token: _w, ...pipeline } = await this.get(id);
    return { sluice_export: EXPORT_FORMAT_VERSION, exported_at: this.now(), pipeline };
  }

  async import(document: unknown): Promise<Pipeline> {
    const parsed = parseInput(PipelineImportSchema, document, "import document");
    const body = "sluice_export" in parsed ? parsed.pipeline : parsed;
    return this.create(definitionOf(body as Record<string, unknown>), "imported");
  }

  async validate(id: string): Promise<ValidationResult> {
    const pipeline = await this.get(id);
    const errors = [...(await this.dependencyErrors(pipeline, id)), ...(await this.referenceErrors(pipeline.nodes))];
    return validatePipelineDefinition(pipeline, errors, this.deps.nodeTypes);
  }

  /**
   * What can only be checked at run time, checked now: the connections and the `${var.KEY}` variables each node
   * references (`nodeReferences`, as used-by finds them) must exist; a run would fail on them. A `conn_id` made of a
   * placeholder is known only when the run renders it. Each is looked up once, however many nodes name it: 500 nodes
   * naming the same 10 variables made 5,000 lookups, which on SQLite held the server for a quarter of a second.
   */
  private async referenceErrors(nodes: readonly PipelineNode[]): Promise<string[]> {
    const references = nodes.map((node) => ({ node, ...nodeReferences(node, this.deps.nodeTypes) }));
    const missingConnections = new Set<string>();
    for (const connId of new Set(references.flatMap((r) => r.connections)))
      if (!connId.includes("${") && !(await this.deps.store.connections.get(connId))) missingConnections.add(connId);
    const missingVariables = new Set<string>();
    for (const key of new Set(references.flatMap((r) => r.variables)))
      if (!(await this.deps.store.variables.get(key))) missingVariables.add(key);
    return references.flatMap(({ node, connections, variables }) => [
      ...connections
        .filter((connId) => missingConnections.has(connId))
        .map((connId) => `node '${node.id}': connection '${connId}' does not exist`),
      ...variables
        .filter((key) => missingVariables.has(key))
        .map((key) => `node '${node.id}': variable '${key}' does not exist (\${var.${key}})`),
    ]);
  }

  async validateNodes(id: string, input: ValidateNodesRequest | unknown = {}): Promise<ValidateNodesResponse> {
    const request = parseInput(ValidateNodesRequestSchema, input ?? {});
    const pipeline = await this.get(id);
    let nodes = request.nodes ?? pipeline.nodes;
    if (request.node_ids) {
      const known = new Set(pipeline.nodes.map((n) => n.id));
      const missing = request.node_ids.filter((nid) => !known.has(nid));
      if (missing.length > 0)
        throw new SluiceError("not_found", `node(s) not found in pipeline: ${missing.join(", ")}`);
      const wanted = new Set(request.node_ids);
      nodes = nodes.filter((n) => wanted.has(n.id));
    }
    const results: NodeValidationResult[] = nodes.map((node) => {
      const errors = nodeConfigErrors(node, this.deps.nodeTypes);
      const warnings = node.name ? [] : [`node '${node.id}' has no name`];
      return { node_id: node.id, type: node.type, valid: errors.length === 0, errors, warnings };
    });
    return { valid: results.every((r) => r.valid), nodes: results };
  }

  async versions(id: string): Promise<PipelineVersion[]> {
    await this.get(id);
    return this.deps.store.pipelines.listVersions(id);
  }

  /** One version with the definition it recorded; 404 for an unknown pipeline or version, or another pipeline's. */
  async version(id: string, versionId: string): Promise<PipelineVersionDetail> {
    await this.get(id);
    const found = await this.deps.store.pipelines.getVersion(id, versionId);
    if (!found) throw notFound("version", versionId);
    return { ...found.version, snapshot: withoutToken(found.snapshot) };
  }

  async rollback(id: string, versionId: string): Promise<Pipeline> {
    const current = await this.get(id);
    const found = await this.deps.store.pipelines.getVersion(id, versionId);
    if (!found) throw notFound("version", versionId);
    // the current token stays whatever the version
    const snapshot = withoutToken(found.snapshot);
    const restored = normalize(definitionOf(parseInput(PipelineCreateSchema, snapshot, "stored version")));
    const def: PipelineDefinition = { ...restored, webhook_token: current.webhook_token };
    return this.replace(current, def, `rollback to v${found.version.version}`);
  }

  async bulk(input: BulkRequest | unknown): Promise<BulkResponse> {
    const request = parseInput(BulkRequestSchema, input);
    const action = BULK_ACTIONS.find((a) => a === request.action);
    if (!action) {
      throw new SluiceError(
        "bad_request",
        `unknown bulk action '${request.action}' (expected one of ${BULK_ACTIONS.join(", ")})`,
      );
    }
    const response: BulkResponse = { action, succeeded: [], failed: [], errors: [] };
    for (const id of [...new Set(request.ids)]) {
      try {
        if (action === "delete") await this.delete(id);
        else await this.update(id, { enabled: action === "enable" });
        response.succeeded.push(id);
      } catch (e) {
        response.failed.push(id);
        response.errors.push({ id, error: e instanceof SluiceError ? e.message : "internal error" });
      }
    }
    return response;
  }

  /**
   * Structural rules and dependency references; throws a 400 with the list of errors. `stored`: the dependencies the
   * pipeline has now. A change that keeps one whose pipeline was deleted since is not refused for it (pausing such a
   * pipeline must work; `validate` names it); a change that adds a missing one is.
   */
  private async assertStorable(def: PipelineDefinition, selfId: string | null, stored: string[] = []): Promise<void> {
    const errors = [
      ...structuralErrors(def, this.deps.nodeTypes),
      ...(await this.dependencyErrors(def, selfId, new Set(stored))),
    ];
    if (errors.length > 0) {
      throw new SluiceError("invalid", `invalid pipeline: ${errors.slice(0, 5).join("; ")}`, { errors });
    }
  }

  /**
   * depends_on must name existing pipelines (but those in `missingAllowed`) and must not close a cycle across
   * pipelines.
   */
  private async dependencyErrors(
    def: Pick<PipelineDefinition, "depends_on">,
    selfId: string | null,
    missingAllowed: ReadonlySet<string> = new Set(),
  ): Promise<string[]> {
    if (def.depends_on.length === 0) return [];
    const errors: string[] = [];
    if (selfId && def.depends_on.includes(selfId)) errors.push("a pipeline cannot depend on itself");
    const refs = await this.deps.store.pipelines.listDependencyRefs();
    const byId = new Map(refs.map((r) => [r.id, r.depends_on]));
    for (const dep of def.depends_on) {
      if (dep !== selfId && !byId.has(dep) && !missingAllowed.has(dep))
        errors.push(`depends_on references missing pipeline '${dep}'`);
    }
    if (selfId) {
      byId.set(selfId, def.depends_on);
      const stack = def.depends_on.filter((d) => d !== selfId);
      const seen = new Set<string>();
      while (stack.length > 0) {
        const next = stack.pop() as string;
        if (next === selfId) {
          errors.push("depends_on forms a dependency cycle between pipelines");
          break;
        }
        if (seen.has(next)) continue;
        seen.add(next);
        stack.push(...(byId.get(next) ?? []));
      }
    }
    return errors;
  }
}

/** Snapshots never hold the webhook token (older ones may): a credential is not history (docs/security.md). */
function withoutToken(snapshot: PipelineDefinition): PipelineSnapshot {
  const { webhook_token: _token, ...definition } = snapshot as Partial<PipelineDefinition>;
  return definition as PipelineSnapshot;
}

function describeChange(keys: string[]): string {
  if (keys.length === 0) return "updated";
  return `updated ${keys.sort().join(", ")}`.slice(0, 255);
}
