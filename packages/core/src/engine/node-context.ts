import type { ResolvedConnection, SecretsResolver } from "../connectors/resolver.js";
import { SluiceError } from "../errors.js";
import type { LogLevel } from "../model/run.js";
import type { PipelineNode } from "../model/node.js";
import type { Row } from "./dataset.js";
import { defaultHttpClient, type HttpClient } from "./http/http-client.js";
import type { NodeContext } from "./node-type.js";
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
  /** Run start (for `${run.started_at}` and `${run.date}`); default now. */
  startedAt?: string;
  secrets?: SecretsResolver;
  log?: (level: LogLevel, message: string) => void;
  deadLetter?: (rows: Row[], error: string) => Promise<void>;
  /** Outbound HTTP port; default the guarded client with system DNS. */
  http?: HttpClient;
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
  const scope: TemplateScope = {
    params,
    // `${run.date}`: the run's `date` param when given (backfill), else the day the run started (UTC)
    run: { id: o.runId, date: params.date ?? startedAt.slice(0, 10), started_at: startedAt },
    variable: (key) => secrets.variable(key),
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
    log: o.log ?? (() => undefined),
    render: (text) => renderTemplate(text, scope),
    renderSql: (sql) => renderSqlTemplate(sql, scope),
    connection: async (connId): Promise<ResolvedConnection> => {
      try {
        return await secrets.connection(await renderTemplate(connId, scope));
      } catch (e) {
        if (e instanceof SluiceError && e.code === "not_found") throw new SluiceError("invalid", `unknown connection '${connId}'`);
        throw e;
      }
    },
    http: o.http ?? defaultHttpClient(),
    deadLetter: o.deadLetter ?? (async () => undefined),
  };
}
