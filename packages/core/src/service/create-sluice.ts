import { loadJwtSecret } from "../auth/jwt-secret.js";
import { SluiceEvents } from "../events.js";
import { parseDatabaseUrl } from "../store/database-url.js";
import { createKnexStore, type KnexStore } from "../store/knex/create-knex-store.js";
import { resolveOptions, type ResolvedSluiceOptions, type SluiceOptions } from "./options.js";
import { EventJournal } from "../event-journal.js";
import { SluiceMetrics } from "../metrics/metrics.js";
import { InsightsService } from "./insights-service.js";
import { AuthService } from "./auth-service.js";
import { PipelineService } from "./pipeline-service.js";
import { SystemService } from "./system-service.js";

/** The application facade: what the Koa adapter, the CLI and embedders use. */
export interface Sluice {
  readonly options: ResolvedSluiceOptions;
  readonly store: KnexStore;
  readonly events: SluiceEvents;
  readonly pipelines: PipelineService;
  readonly system: SystemService;
  readonly insights: InsightsService;
  readonly metrics: SluiceMetrics;
  /** Sequenced run/node/log events for live streams (WebSocket) with per-run replay. */
  readonly journal: EventJournal;
  readonly auth: AuthService;
  /** Starts background work (executor, scheduler). Idempotent. */
  start(): Promise<void>;
  /** Stops background work and closes the database. Idempotent. */
  close(): Promise<void>;
}

export async function createSluice(input: SluiceOptions = {}): Promise<Sluice> {
  const database = input.database ?? "./sluice.db";
  const parsed = parseDatabaseUrl(database);
  const options = resolveOptions({ ...input, database }, parsed.filePath);
  // the secret stays out of `options` (which embedders may log)
  const jwtSecret = loadJwtSecret(options.stateDir, input.jwtSecret ?? process.env.SVC_JWT_SECRET);
  const store = await createKnexStore(database);
  const events = new SluiceEvents();
  const startedAt = Date.now();
  const clock = options.clock;
  let closed = false;
  let started = false;
  const metrics = new SluiceMetrics({ store, events });
  const journal = new EventJournal(events);
  journal.start();

  return {
    options,
    store,
    events,
    pipelines: new PipelineService({ store, events, clock }),
    system: new SystemService({ store, maxConcurrentRuns: options.maxConcurrentRuns, startedAt, clock }),
    insights: new InsightsService({ store, clock }),
    metrics,
    journal,
    auth: new AuthService({ store, clock, logger: options.logger, apiKeys: options.apiKeys, jwtSecret }),
    async start() {
      if (started) return;
      started = true;
      metrics.start();
    },
    async close() {
      if (closed) return;
      closed = true;
      metrics.stop();
      journal.stop();
      events.removeAllListeners();
      await store.close();
    },
  };
}
