import { nowIso, type Clock } from "../clock.js";
import type { ResolvedVariable } from "../connectors/resolver.js";
import { notFound, SluiceError } from "../errors.js";
import { nodeReferences } from "../insights/node-references.js";
import { PER_PAGE_DEFAULT, type Page, type PaginationQuery } from "../model/common.js";
import { MASKED_SECRET } from "../model/connection.js";
import { VariableKeySchema, VariableUpdateSchema, VariableUpsertSchema, type Variable } from "../model/variable.js";
import type { Store, VariableRecord } from "../store/ports.js";
import { parseInput } from "../validation.js";
import type { Vault } from "../vault/vault.js";
import type { UsedBy } from "./connection-service.js";

export interface VariableServiceDeps {
  store: Store;
  vault: Vault;
  clock: Clock;
}

/** Variables (SPEC part 4): `string` stored plain, `secret` encrypted and always returned as `********`. */
export class VariableService {
  constructor(private readonly deps: VariableServiceDeps) {}

  private view(r: VariableRecord): Variable {
    return {
      key: r.key,
      value: r.type === "secret" ? MASKED_SECRET : r.value,
      type: r.type,
      created_at: r.created_at,
      updated_at: r.updated_at,
    };
  }

  private key(key: string): string {
    return parseInput(VariableKeySchema, key, "variable key");
  }

  async list(query: PaginationQuery = {}): Promise<Variable[] | Page<Variable>> {
    if (query.page === undefined && query.per_page === undefined) {
      return (await this.deps.store.variables.list()).items.map((r) => this.view(r));
    }
    const page = query.page ?? 1;
    const per_page = query.per_page ?? PER_PAGE_DEFAULT;
    const { items, total } = await this.deps.store.variables.list({ page, per_page });
    return { items: items.map((r) => this.view(r)), total, page, per_page, pages: Math.ceil(total / per_page) };
  }

  async get(key: string): Promise<Variable> {
    const record = await this.deps.store.variables.get(this.key(key));
    if (!record) throw notFound("variable", key);
    return this.view(record);
  }

  /** POST: creates (created true) or updates. A secret sent back as `********` keeps its stored value. */
  async upsert(body: unknown): Promise<{ created: boolean; variable: Variable }> {
    const input = parseInput(VariableUpsertSchema, body);
    return this.write(input.key, input.value, input.type);
  }

  /** PUT: the key is taken from the path. */
  async update(key: string, body: unknown): Promise<Variable> {
    const k = this.key(key);
    const input = parseInput(VariableUpdateSchema, body);
    if (input.key !== undefined && input.key !== k)
      throw new SluiceError("invalid", "the body key must match the path");
    return (await this.write(k, input.value, input.type)).variable;
  }

  private async write(
    key: string,
    value: string,
    requested: "string" | "secret" | undefined,
  ): Promise<{ created: boolean; variable: Variable }> {
    const now = nowIso(this.deps.clock);
    const current = await this.deps.store.variables.get(key);
    // an update without `type` keeps the stored type, so a secret never silently becomes plaintext
    const type = requested ?? current?.type ?? "string";
    let stored: string;
    if (value === MASKED_SECRET && current?.type === "secret") {
      // `********` is the masked secret sent back: keep the stored value; revealing it as a string is not allowed
      if (type !== "secret") {
        throw new SluiceError(
          "invalid",
          `variable '${key}' is a secret; to make it a string, send its new value (not ********)`,
        );
      }
      stored = current.value;
    } else if (type === "secret" && value === MASKED_SECRET && current) {
      stored = this.deps.vault.encrypt(current.value);
    } else if (type === "secret" && value === MASKED_SECRET) {
      // the mask keeps a stored value; a new secret has none to keep
      throw new SluiceError(
        "invalid",
        `variable '${key}' is new: send its value (******** only keeps a stored secret)`,
      );
    } else {
      stored = type === "secret" ? this.deps.vault.encrypt(value) : value;
    }
    const record: VariableRecord = {
      key,
      type,
      value: stored,
      created_at: current?.created_at ?? now,
      updated_at: now,
    };
    const created = await this.deps.store.variables.upsert(record);
    return { created, variable: this.view({ ...record, created_at: created ? now : (current?.created_at ?? now) }) };
  }

  async delete(key: string): Promise<void> {
    if (!(await this.deps.store.variables.delete(this.key(key)))) throw notFound("variable", key);
  }

  async usedBy(key: string): Promise<UsedBy[]> {
    await this.get(key);
    const out: UsedBy[] = [];
    for (const p of await this.deps.store.pipelines.listFull()) {
      const nodeIds = p.nodes.filter((n) => nodeReferences(n).variables.includes(key)).map((n) => n.id);
      if (nodeIds.length) out.push({ pipeline_id: p.id, name: p.name, node_ids: nodeIds });
    }
    return out;
  }

  /** The value with a secret decrypted — for the engine only. */
  async resolve(key: string): Promise<ResolvedVariable> {
    const record = await this.deps.store.variables.get(key);
    if (!record) throw notFound("variable", key);
    const secret = record.type === "secret";
    return { value: secret ? this.deps.vault.decrypt(record.value) : record.value, secret };
  }
}
