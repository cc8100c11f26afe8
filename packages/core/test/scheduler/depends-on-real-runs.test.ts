import { afterEach, describe, expect, it } from "vitest";
import { createSluice, storeOf, type Sluice } from "../../src/service/create-sluice.js";
import { silentLogger } from "../../src/logger.js";
import { createTestDatabase, type TestDatabase } from "../../../../test-support/databases.js";
import { runEnded } from "../engine/test-sluice.js";

class MovableClock {
  constructor(public current: number) {}
  now = () => new Date(this.current);
}

let db: TestDatabase | null = null;
let sluice: Sluice | null = null;
afterEach(async () => {
  await sluice?.close();
  await db?.drop();
});

const codeNode = (code: string) => [{ id: "work", type: "code", config: { code } }];

/** The run's status once it has ended (a sandboxed node can take seconds to start). */
const settled = async (s: Sluice, runId: string) => (await runEnded(s, runId)).status;

describe("depends_on gates scheduled runs (real runs, moved clock)", () => {
  it("skips the slot while the dependency's latest run failed, naming it, and runs once it succeeded", async () => {
    db = await createTestDatabase("sqlite");
    const clock = new MovableClock(Date.parse("2026-11-22T10:00:30Z"));
    sluice = await createSluice({ database: db.url, clock, logger: silentLogger, jwtSecret: "2".repeat(64) });
    await sluice.start();
    const upstream = await sluice.pipelines.create({
      name: "upstream",
      nodes: codeNode("throw new Error('source down')"),
    });
    const failed = await sluice.runs.trigger(upstream.id);
    expect(await settled(sluice, failed.id)).toBe("failed");

    const downstream = await sluice.pipelines.create({
      name: "downstream",
      schedule: "* * * * *",
      depends_on: [upstream.id],
    });
    const skipped: { blocked_by?: string[]; pipeline_id: string }[] = [];
    sluice.events.on("schedule.skipped", (e) => skipped.push(e));
    // registered on the pipeline's event, asynchronously: done here too, so no wait can be too short
    await sluice.scheduler.refresh(downstream.id);
    clock.current = Date.parse("2026-11-22T10:01:00Z");
    await sluice.scheduler.tick();
    expect(await storeOf(sluice).knex("runs").where("pipeline_id", downstream.id).count({ n: "*" })).toEqual([
      { n: 0 },
    ]);
    expect(skipped).toEqual([expect.objectContaining({ pipeline_id: downstream.id, blocked_by: [upstream.id] })]);
    expect(await sluice.scheduler.dependencies(downstream.id)).toEqual([
      { pipeline_id: upstream.id, name: "upstream", last_status: "failed", satisfied: false },
    ]);

    await sluice.pipelines.update(upstream.id, { nodes: codeNode("return [{ ok: true }];") });
    const ok = await sluice.runs.trigger(upstream.id);
    expect(await settled(sluice, ok.id)).toBe("success");
    clock.current = Date.parse("2026-11-22T10:02:00Z");
    await sluice.scheduler.tick();
    const runs = (await storeOf(sluice).knex("runs").where("pipeline_id", downstream.id).select("trigger")) as {
      trigger: string;
    }[];
    expect(runs).toEqual([{ trigger: "schedule" }]);
  });
});
