import type { ResolvedConnection, SecretsResolver } from "../connectors/resolver.js";
import { confineConnection } from "../connectors/registry.js";
import { SluiceError } from "../errors.js";
import type { LogLevel } from "../model/run.js";
import type { PipelineNode } from "../model/node.js";
import { dlqPayload, type DlqPayload } from "./dlq-payload.js";
import { defaultHttpClient, type HttpClient } from "./http/http-client.js";
import type { NodeContext } from "./node-type.js";
import { SecretScrubber } from "./secret-scrubber.js";
import { renderSqlTemplate, renderTemplate, type TemplateScope } from "./templating.js";

export interface NodeContextOptions {
  runId: string;
  pipelineId: string;
  pipelineName?: string;
  node: PipelineNode;
  attempt?: number;
  signal?: AbortSignal;
  timeoutMs?: number;
  params?: Record<string, string>;
  inputIds?: readonly string[];
  fileRoots: readonly string[];
  /** The server's own state files, refused to file nodes and connections (default none). */
  stateFiles?: readonly string[];
  /** Run start (for `${run.started_at}` and `${run.date}`); default now. */
  startedAt?: string;
  secrets?: SecretsResolver;
  log?: (level: LogLevel, message: string) => void;
  /** Writes a DLQ entry: what it keeps of the rows the node sent (dlqPayload), and the node's error, masked. */
  deadLetter?: (payload: DlqPayload, error: string) => Promise<void>;
  /** Outbound HTTP port; default the guarded client with system DNS. */
  http?: HttpClient;
  /**
   * Records every secret this context resolves and masks it in `log` and `deadLetter`; the run shares one across its
   * nodes and attempts so its errors are masked too. Default: one for this context alone.
   */
  scrubber?: SecretScrubber;
}

const noSecrets: SecretsResolver = {
  connection: (connId) => Promise.reject(new SluiceError("not_found", `connection '${connId}' not found`)),
  variable: (key) => Promise.reject(new SluiceError("not_found", `variable '${key}' not found`)),
};

/** Builds the context a node runs with. The executor uses it; tests use it to run a node type on its own. */
export function createNodeContext(o: NodeContextOptions): NodeContext {
  const params = Object.freeze({ ...(o.params ?? {}) });
  const startedAt = o.startedAt ?? new Date().toISOString();
  const secrets = o.secrets ?? noSecrets;
  const stateFiles = o.stateFiles ?? [];
  const scrubber = o.scrubber ?? new SecretScrubber();
  const log = o.log ?? (() => undefined);
  const deadLetter = o.deadLetter ?? (async () => undefined);
  const scope: TemplateScope = {
    params,
    // `${run.date}`: the run's `date` param when given (backfill), else the day the run started (UTC)
    run: { id: o.runId, date: params.date ?? startedAt.slice(0, 10), started_at: startedAt },
    variable: async (key) => {
      const variable = await secrets.variable(key);
      if (variable.secret) scrubber.add(variable.value);
      return variable.value;
    },
  };
  return {
    runId: o.runId,
    pipelineId: o.pipelineId,
    pipelineName: o.pipelineName ?? o.pipelineId,
    node: o.node,
    attempt: o.attempt ?? 1,
    signal: o.signal ?? new AbortController().signal,
    timeoutMs: o.timeoutMs ?? 30 * 60 * 1000,
    params,
    inputIds: o.inputIds ?? [],
    fileRoots: o.fileRoots,
    stateFiles,
    log: (level, message) => log(level, scrubber.scrub(message)),
    excerpt: (text, chars) => scrubber.excerpt(text, chars),
    render: (text) => renderTemplate(text, scope),
    renderSql: (sql) => renderSqlTemplate(sql, scope),
    connection: async (connId): Promise<ResolvedConnection> => {
      try {
        const conn = await secrets.connection(await renderTemplate(connId, scope));
        scrubber.addConnection(conn);
        // at every use, not at creation: a symlink may have been created since
        return await confineConnection(conn, { fileRoots: o.fileRoots, stateFiles });
      } catch (e) {
        if (e instanceof SluiceError && e.code === "not_found")
          throw new SluiceError("invalid", `unknown connection '${connId}'`);
        throw e;
      }
    },
    http: o.http ?? defaultHttpClient(),
    // only the rows an entry can keep are made readable (a quality check can send hundreds of thousands)
    deadLetter: async (rows, error) =>
      deadLetter(await dlqPayload(rows, (row) => scrubber.shown(row)), scrubber.scrub(error)),
  };
}

/**
 * Resolves what `config` refers to through `ctx` — every string rendered (its `${var.…}`), every `conn_id` looked up
 * — only so that the context's scrubber records their secrets; what cannot be resolved is passed over. For a node
 * a resumed run does not run again: its kept output may hold the secrets it resolved when it ran.
 */
export async function recordSecretsOf(ctx: NodeContext, config: unknown, key = ""): Promise<void> {
  if (typeof config === "string") {
    await (key === "conn_id" ? ctx.connection(config) : ctx.render(config)).catch(() => undefined);
  } else if (Array.isArray(config)) {
    for (const item of config) await recordSecretsOf(ctx, item);
  } else if (config && typeof config === "object") {
    for (const [name, value] of Object.entries(config)) await recordSecretsOf(ctx, value, name);
  }
}
