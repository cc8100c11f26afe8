import knexFactory from "knex";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createKnexStore, type KnexStore } from "../../src/store/knex/create-knex-store.js";
import { pgTemplate } from "../../src/store/knex/pg-statements.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";
import { nodeRunRow, pendingRun, T0 } from "../../../../test-support/run-fixtures.js";

const postgres = (await testDialects()).includes("postgres");

/** What node-postgres was asked to run while `fn` ran: each query's prepared-statement name (if any) and values. */
async function queriesOf<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; queries: { name?: string; values: unknown[] }[] }> {
  const queries: { name?: string; values: unknown[] }[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    const c = typeof config === "object" && config !== null ? (config as { name?: string; values?: unknown[] }) : {};
    queries.push({ name: c.name, values: c.values ?? (Array.isArray(rest[0]) ? rest[0] : []) });
    return (query as (...args: unknown[]) => unknown).call(this, config, ...rest);
  } as typeof query;
  try {
    return { result: await fn(), queries };
  } finally {
    pg.Client.prototype.query = query;
  }
}

/*
 * On PostgreSQL the statements every run executes (a trigger's insert, the claim, a run-state batch) go to the driver
 * as named prepared statements, compiled by knex once (store/knex/pg-statements.ts): PostgreSQL plans each once per
 * connection, and no knex query is built for them again. What must hold: each is one statement of its own name, with
 * the call's values in it, and the runs are written and claimed as through knex.
 */
describe.runIf(postgres)("postgres: a run's statements are prepared once", () => {
  let db: TestDatabase;
  let store: KnexStore;
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it("a trigger's insert, the claim and the run's batch are one named statement each, with the call's values", async () => {
    db = await createTestDatabase("postgres");
    store = await createKnexStore(db.url);
    const run = pendingRun("ps-run", { pipeline_id: "ps-p", created_at: T0 });

    const queued = await queriesOf(() =>
      store.runs.writeBatch({ runs: [run], nodeRuns: [], logs: [], outputs: [], transitions: [], events: [] }),
    );
    expect(queued.queries.map((q) => q.name)).toEqual(["sluice_insert_runs"]);
    expect((await store.runs.get("ps-run"))?.status).toBe("pending");

    const now = "2026-01-01T00:00:05.000Z";
    const claim = await queriesOf(() => store.runs.claimPending("ps-owner", 3, now));
    expect(claim.queries.map((q) => q.name)).toEqual(["sluice_claim"]);
    // the call's owner, time and limit, and nothing standing in for them
    expect(claim.queries[0]!.values).toEqual(expect.arrayContaining(["ps-owner", now, 3]));
    expect(claim.queries[0]!.values.filter((v) => typeof v === "string" && v.startsWith("\u0000"))).toEqual([]);
    expect(claim.result.map((r) => [r.id, r.status, r.owner, r.started_at, r.attempted])).toEqual([
      ["ps-run", "running", "ps-owner", now, false],
    ]);
    const epoch = claim.result[0]!.epoch;

    const claims = new Map([["ps-run", { owner: "ps-owner", epoch }]]);
    const ended = await queriesOf(() =>
      store.runs.writeBatch({
        nodeRuns: [nodeRunRow("ps-nr", "ps-run", { status: "success", finished_at: now })],
        logs: [],
        outputs: [],
        transitions: [
          { id: "ps-run", from: ["running"], to: "success", fields: { finished_at: now }, claim: claims.get("ps-run") },
        ],
        claims,
      }),
    );
    expect(ended.queries.map((q) => q.name)).toEqual(["sluice_run_state_batch"]);
    expect(ended.result).toEqual({ moved: ["ps-run"], seqs: [], refused: [] });
    expect((await store.runs.get("ps-run"))?.status).toBe("success");
    expect((await store.runs.nodeRuns("ps-run")).map((nr) => nr.status)).toEqual(["success"]);

    // a second claim finds nothing pending, under the same statement
    const again = await queriesOf(() => store.runs.claimPending("ps-owner", 3, now));
    expect([again.queries.map((q) => q.name), again.result]).toEqual([["sluice_claim"], []]);
  });
});

describe("pgTemplate: a statement compiled once, its parameters put where their markers were", () => {
  const knex = knexFactory({ client: "pg" });
  const markers = { owner: "\u0000owner", limit: 2_147_483_001 } as const;

  it("puts each parameter where its marker is, keeps the other values, and uses one text for every call", () => {
    const template = pgTemplate("t", markers, (m) =>
      knex("runs").select("id").where({ owner: m.owner, status: "pending" }).limit(Number(m.limit)),
    );
    expect(template.statement.text).toMatch(/\$1.*\$2.*limit \$3/);
    expect(template.values({ owner: "a", limit: 5 })).toEqual(["a", "pending", 5]);
    expect(template.values({ owner: "b", limit: 7 })).not.toContain("\u0000owner");
  });

  it("refuses a template whose query lost a parameter's marker (knex inlined it or it was never used)", () => {
    expect(() => pgTemplate("t", markers, (m) => knex("runs").update({ owner: m.owner }))).toThrow(
      /parameter limit is not among its values/,
    );
  });
});
