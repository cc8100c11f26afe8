import fs from "node:fs";
import { loadJwtSecret } from "../auth/jwt-secret.js";
import { SluiceEvents } from "../events.js";
import { createKnexStore, type KnexStore } from "../store/knex/create-knex-store.js";
import { resolveOptions, type ResolvedSluiceOptions, type SluiceOptions } from "./options.js";
import { secureStateFiles } from "./state-files.js";
import { EventJournal } from "../event-journal.js";
import { SluiceMetrics } from "../metrics/metrics.js";
import { InsightsService } from "./insights-service.js";
import { AuthService } from "./auth-service.js";
import { PipelineService } from "./pipeline-service.js";
import { SystemService } from "./system-service.js";
import { RunService } from "./run-service.js";
import { Executor } from "../engine/executor.js";
import { mergeNodeTypes } from "../engine/nodes/index.js";
import type { SecretsResolver } from "../connectors/resolver.js";
import { loadVault, type Vault } from "../vault/vault.js";
import { ConnectionService } from "./connection-service.js";
import { VariableService } from "./variable-service.js";
import { WebhookService } from "./webhook-service.js";
import { SchedulerService } from "../scheduler/scheduler-service.js";
import { HookDispatcher } from "../hooks/hook-dispatcher.js";
import { sharedCodeRunnerPool } from "../sandbox/code-runner-pool.js";
import { guardedNetwork } from "../connectors/connector.js";

const STORES = new WeakMap<Sluice, KnexStore>();

/**
 * The database behind a Sluice instance, for tests, benchmarks and tools that inspect stored rows. Adapters and
 * embedders use the services of the facade instead.
 */
export function storeOf(sluice: Sluice): KnexStore {
  const store = STORES.get(sluice);
  if (!store) throw new Error("not a Sluice instance made by createSluice");
  return store;
}

/** The application facade: what the Koa adapter, the CLI and embedders use. */
export interface Sluice {
  readonly options: ResolvedSluiceOptions;
  readonly events: SluiceEvents;
  readonly pipelines: PipelineService;
  readonly system: SystemService;
  readonly insights: InsightsService;
  /** Trigger, cancel, resume and read runs; DLQ. */
  readonly runs: RunService;
  /** Claims and executes queued runs (started by `start()`). */
  readonly executor: Executor;
  readonly metrics: SluiceMetrics;
  /** Sequenced run/node/log events for live streams (WebSocket) with per-run replay. */
  readonly journal: EventJournal;
  readonly auth: AuthService;
  /** Stored connections (secrets encrypted at rest). */
  readonly connections: ConnectionService;
  /** Variables (`secret` ones encrypted at rest). */
  readonly variables: VariableService;
  /** How the engine resolves `conn_id` and `${var.KEY}` (secrets decrypted in memory only). */
  readonly secrets: SecretsResolver;
  /** AES-256-GCM for secrets at rest. */
  readonly vault: Vault;
  /** Cron scheduling, catch-up, depends_on gating and SLA checks (runs on one instance: the lease holder). */
  readonly scheduler: SchedulerService;
  /** Inbound webhook triggers. */
  readonly webhooks: WebhookService;
  /** Outbound pipeline hooks (run/node/SLA notifications). */
  readonly hooks: HookDispatcher;
  /** Starts background work (executor, scheduler). Idempotent. */
  start(): Promise<void>;
  /** Stops background work and closes the database. Idempotent. */
  close(): Promise<void>;
}

export async function createSluice(input: SluiceOptions = {}): Promise<Sluice> {
  const { options, secrets: given } = resolveOptions(input);
  secureStateFiles(options.stateFiles, options.sqliteFile, options.logger);
  if (options.defaultFileRoots && options.sqliteFile !== ":memory:") {
    fs.mkdirSync(options.fileRoots[0]!, { recursive: true, mode: 0o750 });
  }
  const jwtSecret = loadJwtSecret(options.stateDir, given.jwtSecret);
  const store = await createKnexStore(options.database);
  const events = new SluiceEvents();
  const startedAt = Date.now();
  const clock = options.clock;
  let closed = false;
  let started = false;
  const metrics = new SluiceMetrics({ store, events });
  let vault: Vault;
  try {
    vault = loadVault({ sqliteFile: options.sqliteFile, stateDir: options.stateDir, envKey: given.secretKey });
    // a wrong or missing key is a startup error naming the key, not garbage later
    const sample = (await store.connections.anyEncrypted()) ?? (await store.variables.anySecret());
    if (sample) vault.decrypt(sample);
  } catch (e) {
    await store.close().catch(() => undefined);
    throw e;
  }
  // every outbound connection made for a user resolves through here and passes the address guard
  const network = guardedNetwork(options.resolver);
  // the built-in node types with the embedder's added or replaced: what validation, runs and lineage know
  const registry = mergeNodeTypes(options.nodeTypes);
  const connections = new ConnectionService({
    store,
    vault,
    clock,
    logger: options.logger,
    files: options,
    network,
    nodeTypes: registry,
  });
  const variables = new VariableService({ store, vault, clock });
  // the ONE place the engine gets its secrets from
  const secrets: SecretsResolver = options.secrets ?? {
    connection: (connId) => connections.resolve(connId),
    variable: (key) => variables.resolve(key),
    secretNames: async () => ({
      connections: ((await connections.list()) as { conn_id: string }[]).map((c) => c.conn_id),
      variables: ((await variables.list()) as { key: string; type: string }[])
        .filter((v) => v.type === "secret")
        .map((v) => v.key),
    }),
  };
  const executor = new Executor({
    store: store.runs,
    pipelines: store.pipelines,
    events,
    clock,
    logger: options.logger,
    registry,
    secrets,
    fileRoots: options.fileRoots,
    stateFiles: options.stateFiles,
    http: network.http,
    parallelism: options.parallelism,
    maxConcurrentRuns: options.maxConcurrentRuns,
    pollMs: options.executorPollMs,
    heartbeatMs: options.heartbeatMs,
    staleMs: options.staleMs,
    instanceId: options.instanceId,
    eventLog: store.eventLog,
  });
  const journal = new EventJournal({
    events,
    writes: executor.writes,
    log: store.eventLog,
    origin: executor.owner,
    shared: store.dialect !== "sqlite",
    logger: options.logger,
  });
  try {
    await journal.start();
  } catch (e) {
    await journal.stop().catch(() => undefined);
    await store.close().catch(() => undefined);
    throw e;
  }
  const insights = new InsightsService({ store, clock, nodeTypes: registry });
  const runs = new RunService({
    store,
    events,
    clock,
    executor,
    registry,
    insights,
    dryRun: {
      registry,
      secrets,
      fileRoots: options.fileRoots,
      stateFiles: options.stateFiles,
      http: network.http,
      parallelism: options.parallelism,
      clock,
    },
  });
  const logger = options.logger;
  const scheduler = new SchedulerService({
    store,
    events,
    clock,
    logger,
    // an instance that stopped renewing is judged dead by the same limit as its runs' heartbeats
    leaseTtlMs: options.staleMs,
    runs: {
      triggerSlot: (pipelineId, trigger, slotIso) => runs.triggerSlot(pipelineId, trigger, slotIso),
      latestRun: (pipelineId) => runs.latestRun(pipelineId),
      lastSuccessFinishedAt: (pipelineId) => runs.lastSuccessFinishedAt(pipelineId),
    },
  });
  const webhooks = new WebhookService({
    store,
    clock,
    trigger: (pipelineId, params) => runs.trigger(pipelineId, { trigger: "webhook", params }),
  });
  const hooks = new HookDispatcher({
    store,
    events,
    logger,
    http: network.http,
    appendRunLog: (runId, level, message) => runs.appendLog(runId, level, message),
    executingPipeline: (runId) => executor.pipelineOf(runId),
  });

  const sluice: Sluice = {
    options,
    events,
    pipelines: new PipelineService({ store, events, clock, nodeTypes: registry }),
    system: new SystemService({ store, maxConcurrentRuns: options.maxConcurrentRuns, startedAt, clock }),
    insights,
    runs,
    executor,
    metrics,
    journal,
    scheduler,
    webhooks,
    connections,
    variables,
    secrets,
    vault,
    hooks,
    auth: new AuthService({ store, clock, logger: options.logger, apiKeys: options.apiKeys, jwtSecret }),
    async start() {
      if (started) return;
      started = true;
      // the first `code` node should not wait for a runner process to start
      sharedCodeRunnerPool().warmUp();
      metrics.start();
      hooks.start();
      await executor.start();
      await scheduler.start();
    },
    async close() {
      if (closed) return;
      closed = true;
      await scheduler.stop();
      await hooks.stop();
      metrics.stop();
      await executor.stop();
      await executor.writes.flush();
      await journal.stop();
      events.removeAllListeners();
      await store.close();
    },
  };
  STORES.set(sluice, store);
  return sluice;
}
