import { afterEach, describe, expect, it } from "vitest";
import { createSluice, storeOf, type Sluice } from "../../src/service/create-sluice.js";
import { silentLogger } from "../../src/logger.js";
import { createTestDatabase, type TestDatabase } from "../../../../test-support/databases.js";

/** A clock fixed at a given instant: each "restart" below is a new Sluice on the same database at a later time. */
const at = (iso: string) => ({ now: () => new Date(iso) });

let db: TestDatabase | null = null;
const open: Sluice[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  await db?.drop();
  db = null;
});

async function boot(iso: string): Promise<Sluice> {
  const sluice = await createSluice({
    database: db!.url,
    clock: at(iso),
    logger: silentLogger,
    jwtSecret: "1".repeat(64),
  });
  open.push(sluice);
  await sluice.start();
  return sluice;
}

const runsOf = async (sluice: Sluice, pipelineId: string) =>
  (await storeOf(sluice).knex("runs").where("pipeline_id", pipelineId).select("trigger", "created_at")) as {
    trigger: string;
    created_at: string;
  }[];

describe("catch-up across a real restart", () => {
  it("queues one `catchup` run for a slot missed while down (< 24 h), and none on a further restart", async () => {
    db = await createTestDatabase("sqlite");
    const first = await boot("2026-11-22T09:58:30Z");
    const hourly = await first.pipelines.create({ name: "hourly", schedule: "0 * * * *" });
    await first.close();

    const second = await boot("2026-11-22T10:30:00Z"); // the 10:00 slot passed while no process ran
    const runs = await runsOf(second, hourly.id);
    expect(runs.map((r) => r.trigger)).toEqual(["catchup"]);
    await second.close();

    const third = await boot("2026-11-22T10:40:00Z"); // nothing new was missed
    expect((await runsOf(third, hourly.id)).map((r) => r.trigger)).toEqual(["catchup"]);
  });

  it("one pipeline that cannot run does not hold back the others' catch-up, nor the schedule after it", async () => {
    db = await createTestDatabase("sqlite");
    const first = await boot("2026-11-22T09:58:30Z");
    const hourly = await first.pipelines.create({ name: "hourly", schedule: "0 * * * *" });
    const cyclic = await first.pipelines.create({
      name: "cyclic",
      schedule: "0 * * * *",
      nodes: [
        { id: "a", type: "transform", config: { rules: [] } },
        { id: "b", type: "transform", config: { rules: [] } },
      ],
      edges: [{ from: "a", to: "b" }],
    });
    // a cycle written behind the API's back (a hand edit, an older version): every run of it is refused, and it is
    // the newest pipeline, so catch-up reaches it first
    const knex = storeOf(first).knex;
    const body = JSON.parse((await knex("pipelines").where("id", cyclic.id).first()).body as string);
    body.edges.push({ from: "b", to: "a" });
    await knex("pipelines")
      .where("id", cyclic.id)
      .update({ body: JSON.stringify(body) });
    await first.close();

    const second = await boot("2026-11-22T10:30:00Z");
    expect(second.scheduler.isLeader()).toBe(true);
    expect(await runsOf(second, cyclic.id)).toEqual([]);
    expect((await runsOf(second, hourly.id)).map((r) => r.trigger)).toEqual(["catchup"]);
  });

  it("skips the catch-up of a pipeline whose dependency's latest run is not a success, as a scheduled run is", async () => {
    db = await createTestDatabase("sqlite");
    const first = await boot("2026-11-22T09:58:30Z");
    const upstream = await first.pipelines.create({ name: "upstream" }); // never run: not a success
    const dependent = await first.pipelines.create({
      name: "dependent",
      schedule: "0 * * * *",
      depends_on: [upstream.id],
    });
    await first.close();

    const second = await boot("2026-11-22T10:30:00Z");
    expect(await runsOf(second, dependent.id)).toEqual([]);
    // the slot is recorded as skipped: a further restart does not try it again
    await second.close();
    const third = await boot("2026-11-22T10:40:00Z");
    expect(await runsOf(third, dependent.id)).toEqual([]);
    const state = await storeOf(third).knex("scheduler_state").where("pipeline_id", dependent.id).first();
    expect(state?.last_slot_at).toBe("2026-11-22T10:00:00.000Z");
  });

  it("skips a miss older than 24 h", async () => {
    db = await createTestDatabase("sqlite");
    const first = await boot("2026-11-22T09:00:00Z"); // a Sunday
    const weekly = await first.pipelines.create({ name: "weekly", schedule: "0 10 * * 1" });
    await first.close();
    const later = await boot("2026-11-25T12:00:00Z"); // Monday 10:00 was missed more than 24 h ago
    expect(await runsOf(later, weekly.id)).toEqual([]);
  });
});
