import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { SluiceEvents } from "../events.js";
import type { Store } from "../store/ports.js";

const DURATION_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800];

/**
 * Prometheus metrics for one Sluice instance, fed by the event bus (runs, nodes), the HTTP adapter (request
 * durations) and the store (active runs, queue depth, read when scraped).
 */
export class SluiceMetrics {
  readonly registry = new Registry();
  private readonly runsTotal: Counter<"status">;
  private readonly runDuration: Histogram<"status">;
  private readonly nodeRunsTotal: Counter<"status">;
  private readonly nodeDuration: Histogram<"status">;
  private readonly httpDuration: Histogram<"method" | "route" | "status">;
  private readonly unsubscribers: (() => void)[] = [];

  constructor(private readonly deps: { store: Store; events: SluiceEvents }) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: "sluice_process_" });
    this.runsTotal = new Counter({
      name: "sluice_runs_total",
      help: "Runs finished, by final status",
      labelNames: ["status"],
      registers,
    });
    this.runDuration = new Histogram({
      name: "sluice_run_duration_seconds",
      help: "Run duration from start to finish",
      labelNames: ["status"],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.nodeRunsTotal = new Counter({
      name: "sluice_node_runs_total",
      help: "Node runs finished, by status",
      labelNames: ["status"],
      registers,
    });
    this.nodeDuration = new Histogram({
      name: "sluice_node_duration_seconds",
      help: "Node run duration",
      labelNames: ["status"],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.httpDuration = new Histogram({
      name: "sluice_http_request_duration_seconds",
      help: "HTTP request duration by method, route pattern and status",
      labelNames: ["method", "route", "status"],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers,
    });
    const store = this.deps.store;
    new Gauge({
      name: "sluice_active_runs",
      help: "Runs currently running (all instances sharing the database)",
      registers,
      async collect() {
        this.set(await store.system.activeRunCount());
      },
    });
    new Gauge({
      name: "sluice_queue_depth",
      help: "Runs waiting for an execution slot (status pending)",
      registers,
      async collect() {
        this.set(await store.system.pendingRunCount());
      },
    });
  }

  start(): void {
    const { events } = this.deps;
    const finished = (status: string) => (e: { duration_ms?: number }) => {
      this.runsTotal.inc({ status });
      if (typeof e.duration_ms === "number") this.runDuration.observe({ status }, e.duration_ms / 1000);
    };
    const node = (status: string) => (e: { duration_ms?: number }) => {
      this.nodeRunsTotal.inc({ status });
      if (typeof e.duration_ms === "number") this.nodeDuration.observe({ status }, e.duration_ms / 1000);
    };
    const handlers: [Parameters<SluiceEvents["on"]>[0], (e: { duration_ms?: number }) => void][] = [
      ["run.completed", finished("success")],
      ["run.failed", finished("failed")],
      ["run.cancelled", finished("cancelled")],
      ["node.completed", node("success")],
      ["node.failed", node("failed")],
      ["node.skipped", node("skipped")],
    ];
    for (const [type, fn] of handlers) {
      events.on(type, fn as never);
      this.unsubscribers.push(() => events.off(type, fn as never));
    }
  }

  stop(): void {
    for (const off of this.unsubscribers.splice(0)) off();
  }

  observeHttp(method: string, route: string, status: number, seconds: number): void {
    this.httpDuration.observe({ method, route, status: String(status) }, seconds);
  }

  /** The Prometheus text exposition. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
