import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSluice, silentLogger, storeOf, type Sluice, type StreamedEvent } from "../../src/index.js";
import type { RunStateBatch } from "../../src/store/ports.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";
import { TEST_JWT_SECRET } from "../../../../test-support/secrets.js";

/*
 * A run's end (`run.completed`, `run.failed`) is logged in the transaction that ends the run, not in one after it:
 * subscribers hear it once, numbered after every other event of the run, and the log holds it once.
 */
const dialects = await testDialects();

describe.each(dialects)("%s: the event announcing a run's end", (dialect) => {
  let db: TestDatabase;
  let sluice: Sluice;
  const batches: RunStateBatch[] = [];
  beforeAll(async () => {
    db = await createTestDatabase(dialect);
    sluice = await createSluice({ database: db.url, logger: silentLogger, jwtSecret: TEST_JWT_SECRET });
    // every batch the executor writes (the real store's, recorded on the way)
    const runs = storeOf(sluice).runs;
    const writeBatch = runs.writeBatch.bind(runs);
    runs.writeBatch = (batch) => {
      batches.push(batch);
      return writeBatch(batch);
    };
    await sluice.start();
  });
  afterAll(async () => {
    await sluice?.close();
    await db?.drop();
  });

  async function runAndListen(node: {
    type: string;
    config: unknown;
  }): Promise<{ runId: string; heard: StreamedEvent[] }> {
    const pipeline = await sluice.pipelines.create({
      name: `ends ${Math.random()}`,
      nodes: [{ id: "n", ...node }],
      edges: [],
    });
    const heard: StreamedEvent[] = [];
    let ended: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (ended = resolve));
    const unsubscribe = sluice.journal.subscribe((e) => {
      if (e.pipeline_id !== pipeline.id) return;
      heard.push(e);
      if (e.type === "run.completed" || e.type === "run.failed") ended();
    });
    const run = await sluice.runs.trigger(pipeline.id);
    await done;
    // anything heard late (a second copy) would arrive within a few turns
    await new Promise((r) => setTimeout(r, 100));
    unsubscribe();
    return { runId: run.id, heard: heard.filter((e) => e.run_id === run.id) };
  }

  it.each([
    ["run.completed", { type: "transform", config: { rules: [{ type: "add_column", name: "x", expression: "1" }] } }],
    ["run.failed", { type: "source_file", config: { path: `no-such-file-${process.pid}.csv` } }],
  ])("%s: logged with the run's end, heard once, numbered last", async (type, node) => {
    const { runId, heard } = await runAndListen(node);
    const ends = heard.filter((e) => e.type === type);
    expect(ends).toHaveLength(1);
    const end = ends[0]!;
    expect(Math.max(...heard.map((e) => e.seq))).toBe(end.seq);
    const logged = await storeOf(sluice).eventLog.ofRun(runId, 0);
    expect(logged.filter((e) => e.type === type).map((e) => e.seq)).toEqual([end.seq]);
    expect(logged.map((e) => e.seq)).toEqual(heard.map((e) => e.seq).sort((a, b) => a - b));
    // the batch that ended the run carried the event; no later batch logged it again
    const ending = batches.findIndex((b) => b.transitions?.some((t) => t.id === runId && t.event?.event.type === type));
    expect(ending).toBeGreaterThanOrEqual(0);
    const later = batches.slice(ending + 1).flatMap((b) => b.events ?? []);
    expect(later.filter((e) => e.event.run_id === runId)).toEqual([]);
  });
});
