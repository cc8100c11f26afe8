import type { Clock } from "../clock.js";
import type { NodeTypeRegistry } from "../engine/node-type.js";
import { notFound } from "../errors.js";
import { computeImpact, type Impact } from "../insights/impact.js";
import { buildLineage, type LineageGraph } from "../insights/lineage.js";
import {
  type SearchQuery,
  type Dashboard,
  type PipelineRunSummary,
  type SearchResult,
  type TrendEntry,
} from "../model/insights.js";
import { nextRunAt } from "../scheduler/cron.js";
import type { ScheduleRef, Store } from "../store/ports.js";

const DAY_MS = 86_400_000;

/** Cross-pipeline read views: summary, dashboard, search, lineage and impact. */
export class InsightsService {
  private readonly nextRuns = new NextRunMemo();

  /** `nodeTypes`: what lineage and impact read a node's references from; default the built-in types. */
  constructor(private readonly deps: { store: Store; clock: Clock; nodeTypes?: NodeTypeRegistry }) {}

  /** Every pipeline with its run statistics and next scheduled run: three queries, whatever the number of pipelines. */
  async summary(): Promise<PipelineRunSummary[]> {
    const [{ items }, stats, schedules] = await Promise.all([
      this.deps.store.pipelines.list(),
      this.deps.store.insights.pipelineRunStats(),
      this.deps.store.pipelines.listScheduleRefs(),
    ]);
    const byId = new Map(stats.map((s) => [s.pipeline_id, s]));
    const scheduleById = new Map(schedules.map((s) => [s.id, s]));
    const now = this.deps.clock.now();
    return items.map((p) => {
      const s = byId.get(p.id);
      const schedule = scheduleById.get(p.id);
      return {
        ...p,
        last_run_status: s?.last_run_status ?? null,
        last_run_at: s?.last_run_at ?? null,
        runs_total: s?.runs_total ?? 0,
        runs_success: s?.runs_success ?? 0,
        runs_failed: s?.runs_failed ?? 0,
        schedule_timezone: schedule?.schedule_timezone ?? "UTC",
        next_run_at: schedule ? this.nextRuns.at(schedule, now) : null,
      };
    });
  }

  /** Trend entries for the last `days` UTC dates, oldest first, zero-filled; of one pipeline with `pipelineId`. */
  async trends(days: number, pipelineId?: string): Promise<TrendEntry[]> {
    const today = Date.UTC(...utcDateParts(this.deps.clock.now()));
    const first = today - (days - 1) * DAY_MS;
    const counts = await this.deps.store.insights.dailyCounts(new Date(first).toISOString(), pipelineId);
    const entries = new Map<string, TrendEntry>();
    for (let t = first; t <= today; t += DAY_MS) {
      const date = new Date(t).toISOString().slice(0, 10);
      entries.set(date, { date, success: 0, failed: 0, total: 0 });
    }
    for (const c of counts) {
      const entry = entries.get(c.date);
      if (!entry) continue;
      entry.total += c.count;
      if (c.status === "success") entry.success += c.count;
      if (c.status === "failed") entry.failed += c.count;
    }
    return [...entries.values()];
  }

  async dashboard(): Promise<Dashboard> {
    const since = new Date(this.deps.clock.now().getTime() - 7 * DAY_MS).toISOString();
    const { store } = this.deps;
    const [pipelines, recent, trends, topFailing, active, queued] = await Promise.all([
      this.summary(),
      store.insights.recentRuns(10),
      this.trends(7),
      store.insights.topFailing(since, 5),
      store.system.activeRunCount(),
      store.system.pendingRunCount(),
    ]);
    return {
      pipelines,
      recent_runs: recent,
      trends,
      top_failing: topFailing,
      counters: {
        pipelines: pipelines.length,
        enabled_pipelines: pipelines.filter((p) => p.enabled).length,
        runs_total: pipelines.reduce((n, p) => n + p.runs_total, 0),
        active_runs: active,
        queued_runs: queued,
      },
    };
  }

  async search({ q, limit }: SearchQuery): Promise<SearchResult[]> {
    return this.deps.store.insights.search(q, limit);
  }

  async lineage(): Promise<LineageGraph> {
    return buildLineage(await this.deps.store.pipelines.listFull(), this.deps.nodeTypes);
  }

  async impact(pipelineId: string): Promise<Impact> {
    const all = await this.deps.store.pipelines.listFull();
    if (!all.some((p) => p.id === pipelineId)) throw notFound("pipeline", pipelineId);
    return computeImpact(pipelineId, all, this.deps.nodeTypes);
  }
}

/**
 * Next-run times by (enabled, schedule, zone), computed with the scheduler's `nextRunAt` and kept until they pass:
 * the first slot after t0 is also the first slot after any later instant before it. Evaluating a cron expression costs
 * a fraction of a millisecond, so without this a summary of 1,000 distinctly scheduled pipelines would spend most of
 * its time there on every refresh.
 */
class NextRunMemo {
  private static readonly MAX_ENTRIES = 10_000;
  private readonly entries = new Map<string, { from: number; next: Date | null }>();

  at(schedule: ScheduleRef, now: Date): string | null {
    if (!schedule.enabled || !schedule.schedule) return null;
    const key = `${schedule.schedule}\u0000${schedule.schedule_timezone ?? "UTC"}`;
    const t = now.getTime();
    let entry = this.entries.get(key);
    if (!entry || t < entry.from || (entry.next !== null && t >= entry.next.getTime())) {
      if (this.entries.size >= NextRunMemo.MAX_ENTRIES) this.entries.clear();
      entry = { from: t, next: nextRunAt(schedule, now) };
      this.entries.set(key, entry);
    }
    return entry.next?.toISOString() ?? null;
  }
}

function utcDateParts(d: Date): [number, number, number] {
  return [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()];
}
