import { nowIso, type Clock } from "../clock.js";
import { roleHasPermission } from "../auth/permissions.js";
import type { Principal } from "../auth/principal.js";
import type { UsedBy } from "../model/insights.js";

export type { UsedBy };
import { CONNECTORS, CONNECTION_TYPE_INFO, confineConnection } from "../connectors/registry.js";
import { guardedNetwork, type ConnectionFields, type GuardedNetwork } from "../connectors/connector.js";
import type { ResolvedConnection } from "../connectors/resolver.js";
import { SecretScrubber } from "../engine/secret-scrubber.js";
import { notFound, SluiceError } from "../errors.js";
import type { FileAccess } from "../file-access.js";
import { newId } from "../ids.js";
import type { NodeTypeRegistry } from "../engine/node-type.js";
import { nodeReferences } from "../insights/node-references.js";
import type { Logger } from "../logger.js";
import { PER_PAGE_DEFAULT, type Page, type PaginationQuery } from "../model/common.js";
import {
  ConnectionCreateSchema,
  ConnectionUpdateSchema,
  MASKED_SECRET,
  type Connection,
  type ConnectionTestResult,
  type ConnectionType,
  type ConnectionTypeInfo,
} from "../model/connection.js";
import type { ConnectionRecord, Store } from "../store/ports.js";
import { parseInput } from "../validation.js";
import type { Vault } from "../vault/vault.js";

export const CONNECTION_TEST_TIMEOUT_MS = 5000;

export interface ConnectionServiceDeps {
  store: Store;
  vault: Vault;
  clock: Clock;
  logger: Logger;
  /** File roots and state files: SQLite connection paths are confined at every test. */
  files: FileAccess;
  /** How connection tests reach the network (address-guarded); default system DNS. */
  network?: GuardedNetwork;
  /** Node types whose references name connections (used-by); default the built-in ones. */
  nodeTypes?: NodeTypeRegistry;
}

/** What a failed connection test answers (SPEC: a generic message that refers to the server logs). */
const testFailed = (connId: string) => `connection test failed for '${connId}'; see the server logs for details`;

/** Whether the caller may send a stored password to a new destination without giving it (see `update`). */
const mayRedirectSecrets = (principal: Principal) =>
  principal.kind !== "guest" && roleHasPermission(principal.user.role, "users.manage");

/** Stored connections (SPEC part 4): password and extra encrypted at rest; responses never carry the password. */
export class ConnectionService {
  constructor(private readonly deps: ConnectionServiceDeps) {}

  types(): readonly ConnectionTypeInfo[] {
    return CONNECTION_TYPE_INFO;
  }

  private decryptExtra(record: ConnectionRecord): string {
    return record.extra_enc ? this.deps.vault.decrypt(record.extra_enc) : "";
  }

  private view(record: ConnectionRecord, password: string, extra?: string): Connection {
    const out: Connection = {
      id: record.id,
      conn_id: record.conn_id,
      type: record.type as ConnectionType,
      host: record.host,
      port: record.port,
      schema: record.schema,
      login: record.login,
      password,
      created_at: record.created_at,
      updated_at: record.updated_at,
    };
    if (extra !== undefined) out.extra = extra;
    return out;
  }

  private async record(connId: string): Promise<ConnectionRecord> {
    const record = await this.deps.store.connections.get(connId);
    if (!record) throw notFound("connection", connId);
    return record;
  }

  /** List: password `""`, no `extra`. */
  async list(query: PaginationQuery = {}): Promise<Connection[] | Page<Connection>> {
    if (query.page === undefined && query.per_page === undefined) {
      return (await this.deps.store.connections.list()).items.map((r) => this.view(r, ""));
    }
    const page = query.page ?? 1;
    const per_page = query.per_page ?? PER_PAGE_DEFAULT;
    const { items, total } = await this.deps.store.connections.list({ page, per_page });
    return { items: items.map((r) => this.view(r, "")), total, page, per_page, pages: Math.ceil(total / per_page) };
  }

  /** One connection: password `********` (when set), `extra` decrypted. */
  async get(connId: string): Promise<Connection> {
    const record = await this.record(connId);
    return this.view(record, record.password_enc ? MASKED_SECRET : "", this.decryptExtra(record));
  }

  async create(body: unknown): Promise<Connection> {
    const input = parseInput(ConnectionCreateSchema, body);
    const now = nowIso(this.deps.clock);
    const record: ConnectionRecord = {
      id: newId(),
      conn_id: input.conn_id,
      type: input.type,
      host: input.host,
      port: input.port ?? null,
      schema: input.schema,
      login: input.login,
      password_enc: input.password ? this.deps.vault.encrypt(input.password) : null,
      extra_enc: input.extra ? this.deps.vault.encrypt(input.extra) : null,
      created_at: now,
      updated_at: now,
    };
    if (!(await this.deps.store.connections.insert(record))) {
      throw new SluiceError("conflict", `connection '${input.conn_id}' already exists`);
    }
    return this.get(record.conn_id);
  }

  /**
   * Omitted fields keep their values; a password of `********` (or none) keeps the stored one. Only a caller who may
   * manage users (an admin, the API key, open mode) may keep a stored password while changing the connection's type,
   * host, port, extra (which can hold a host) or another field of its destination (`Connector.destinationFields`): an
   * editor, who never sees the password, gives it again, or else could send it to a server of their own (the
   * connection test, or any node using the connection, would deliver it).
   */
  async update(connId: string, body: unknown, principal?: Principal): Promise<Connection> {
    const input = parseInput(ConnectionUpdateSchema, body);
    if (input.conn_id !== undefined && input.conn_id !== connId) {
      throw new SluiceError("invalid", "conn_id cannot be changed (it is the path parameter)");
    }
    const current = await this.record(connId);
    const keepPassword = input.password === undefined || input.password === MASKED_SECRET;
    // `extra` too: a PostgreSQL or MySQL connection takes a host and port from it
    const elsewhere =
      (input.type !== undefined && input.type !== current.type) ||
      (input.host !== undefined && input.host.trim() !== current.host.trim()) ||
      (input.port !== undefined && input.port !== current.port) ||
      (input.extra !== undefined && input.extra !== this.decryptExtra(current)) ||
      (CONNECTORS[current.type as ConnectionType]?.destinationFields ?? []).some(
        (f) => input[f] !== undefined && input[f] !== current[f],
      );
    if (keepPassword && current.password_enc && elsewhere && principal && !mayRedirectSecrets(principal))
      throw new SluiceError(
        "forbidden",
        `connection '${connId}': give the password again to change where it connects (its type, host, port, extra ` +
          "or an http connection's schema; only an admin " +
          "may keep a stored password for a new destination)",
      );
    const next: ConnectionRecord = {
      ...current,
      type: input.type ?? current.type,
      host: input.host ?? current.host,
      port: input.port === undefined ? current.port : input.port,
      schema: input.schema ?? current.schema,
      login: input.login ?? current.login,
      password_enc: keepPassword
        ? current.password_enc
        : input.password
          ? this.deps.vault.encrypt(input.password)
          : null,
      extra_enc:
        input.extra === undefined ? current.extra_enc : input.extra ? this.deps.vault.encrypt(input.extra) : null,
      updated_at: nowIso(this.deps.clock),
    };
    await this.deps.store.connections.update(next);
    return this.get(connId);
  }

  async delete(connId: string): Promise<void> {
    if (!(await this.deps.store.connections.delete(connId))) throw notFound("connection", connId);
  }

  async usedBy(connId: string): Promise<UsedBy[]> {
    await this.record(connId);
    const out: UsedBy[] = [];
    for (const p of await this.deps.store.pipelines.listFull()) {
      const nodeIds = p.nodes
        .filter((n) => nodeReferences(n, this.deps.nodeTypes).connections.includes(connId))
        .map((n) => n.id);
      if (nodeIds.length) out.push({ pipeline_id: p.id, name: p.name, node_ids: nodeIds });
    }
    return out;
  }

  /** The connection with secrets decrypted and its URI — for the engine only, never for responses. */
  async resolve(connId: string): Promise<ResolvedConnection> {
    const fields = await this.fields(await this.record(connId));
    return { ...fields, uri: CONNECTORS[fields.type].uri(fields) };
  }

  private async fields(record: ConnectionRecord): Promise<ConnectionFields> {
    const extraText = this.decryptExtra(record);
    let extra: Record<string, unknown> = {};
    if (extraText) {
      try {
        extra = JSON.parse(extraText) as Record<string, unknown>;
      } catch {
        extra = {};
      }
    }
    return {
      conn_id: record.conn_id,
      type: record.type as ConnectionType,
      host: record.host,
      port: record.port,
      schema: record.schema,
      login: record.login,
      password: record.password_enc ? this.deps.vault.decrypt(record.password_enc) : "",
      extra,
    };
  }

  /**
   * A real round trip with the connection's driver, bounded by 5 s. Failures answer with a generic message; the
   * real cause goes to the server log (never the password).
   */
  async test(connId: string): Promise<ConnectionTestResult> {
    const stored = await this.fields(await this.record(connId));
    const connector = CONNECTORS[stored.type];
    let fields: ConnectionFields;
    try {
      fields = await confineConnection(stored, this.deps.files);
    } catch (e) {
      // a refused path: why (the file roots, a state file) goes to the server log only, like every other failure
      if (!(e instanceof SluiceError)) throw e;
      this.deps.logger.warn("connection test refused", { conn_id: connId, type: stored.type, cause: e.message });
      return { success: false, error: testFailed(connId) };
    }
    const signal = AbortSignal.timeout(CONNECTION_TEST_TIMEOUT_MS);
    try {
      const message = await connector.test(fields, signal, this.deps.network ?? guardedNetwork());
      return { success: true, message, driver: connector.driver };
    } catch (e) {
      let cause = e instanceof Error ? e.message : String(e);
      if (signal.aborted) cause = `timed out after ${CONNECTION_TEST_TIMEOUT_MS / 1000} s`;
      cause = SecretScrubber.forConnection(fields).scrub(cause);
      this.deps.logger.warn("connection test failed", {
        conn_id: connId,
        type: fields.type,
        driver: connector.driver,
        cause,
      });
      return { success: false, error: testFailed(connId) };
    }
  }
}
