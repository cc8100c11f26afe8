import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir, testDialects } from "../../../test-support/databases.js";
import { pgBinDir, startPgCluster, type PgCluster } from "../../../test-support/pg-cluster.js";
import { apiJson, spawnInstance, type ServeProcess } from "../../../test-support/serve-process.js";

/*
 * Chaos (issue 18): three `sluice serve` on a PostgreSQL cluster of the test's own. 300 runs of a pipeline whose sink
 * upserts one row per run are triggered at a steady pace across two schedule-slot boundaries of a `* * * * *`
 * pipeline. Just before the first boundary the scheduling instance is SIGKILLed (restarted 5 s later under the same
 * instance id); at the second boundary the PostgreSQL server itself is restarted. Afterwards every run is terminal,
 * each successful run wrote its row, no run that was never interrupted wrote twice, and each slot has exactly one run.
 */
const HEARTBEAT_MS = 1000;
const STALE_MS = 5000;
const RUNS = 300;
const NODE_SECONDS = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sleepUntil = (t: number) => sleep(Math.max(0, t - Date.now()));
const TERMINAL = new Set(["success", "failed", "cancelled"]);

const started: ServeProcess[] = [];
let cluster: PgCluster | null = null;
afterAll(async () => {
  for (const s of started) await s.stop("SIGKILL");
  await cluster?.destroy();
});

const canRun = (await testDialects()).includes("postgres") && pgBinDir() !== null;

async function sql<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe.runIf(canRun)("chaos: three instances, a SIGKILL and a PostgreSQL restart", () => {
  it("every run terminal, rows written once, each schedule slot fired once", { timeout: 330_000 }, async () => {
    cluster = await startPgCluster();
    const admin = cluster.adminUrl;
    await sql(admin, "create database sluice");
    await sql(admin, "create database target");
    const dbUrl = admin.replace(/\/postgres$/, "/sluice");
    const targetUrl = admin.replace(/\/postgres$/, "/target");
    // `writes` counts every write of a row: the upsert's UPDATE goes through the trigger
    await sql(
      targetUrl,
      `create table chaos_rows (run_id text primary key, written_at text, writes int not null default 1);
       create function count_write() returns trigger language plpgsql as
         $$ begin new.writes := old.writes + 1; return new; end $$;
       create trigger chaos_rows_writes before update on chaos_rows for each row execute function count_write();`,
    );

    const ids = ["chaos-1", "chaos-2", "chaos-3"];
    const serve = (id: string) =>
      spawnInstance(dbUrl, id, { heartbeatMs: HEARTBEAT_MS, staleMs: STALE_MS, cwd: tempDir(), started });
    const instances = new Map<string, ServeProcess>();
    for (const [i, s] of (await Promise.all(ids.map(serve))).entries()) instances.set(ids[i]!, s);
    const any = () => [...instances.values()].find((s) => s.child.exitCode === null && s.child.signalCode === null)!;

    await apiJson(any().url, "/connections", {
      conn_id: "target",
      type: "postgres",
      host: "127.0.0.1",
      port: cluster.port,
      schema: "target",
      login: "postgres",
    });
    const work = await apiJson<{ id: string }>(any().url, "/pipelines", {
      name: "chaos upsert",
      nodes: [
        {
          id: "read",
          type: "source_db",
          max_retries: 3,
          retry_delay: 1,
          config: {
            conn_id: "target",
            query: `select cast(\${run.id} as text) as run_id, now()::text as written_at from pg_sleep(${NODE_SECONDS})`,
          },
        },
        {
          id: "write",
          type: "sink_db",
          max_retries: 3,
          retry_delay: 1,
          config: { conn_id: "target", table: "chaos_rows", mode: "upsert", conflict_key: "run_id" },
        },
      ],
      edges: [{ from: "read", to: "write" }],
    });
    const scheduled = await apiJson<{ id: string }>(any().url, "/pipelines", {
      name: "chaos every minute",
      schedule: "* * * * *",
      nodes: [{ id: "tick", type: "source_db", config: { conn_id: "target", query: "select 1 as one" } }],
      edges: [],
    });

    // the leader has certainly loaded the schedule 12 s after its creation
    const slot1 = Math.ceil((Date.now() + 12_000) / 60_000) * 60_000;
    const slot2 = slot1 + 60_000;
    const triggersEnd = slot2 + 10_000;
    const pace = (triggersEnd - Date.now()) / RUNS;

    /** Triggers one run, on the live instances in turn, retrying through a dead instance or database. */
    const accepted: string[] = [];
    /** Status and code of every 5xx answer: the database's outage must read as 503 `unavailable`, nothing else. */
    const serverErrors: string[] = [];
    let next = 0;
    async function trigger(): Promise<void> {
      const giveUp = Date.now() + 60_000;
      for (;;) {
        const live = [...instances.values()].filter((s) => s.child.exitCode === null && s.child.signalCode === null);
        const target = live[next++ % live.length]!;
        try {
          const res = await fetch(`${target.url}/api/pipelines/${work.id}/run`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: "{}",
          });
          if (res.status === 202 || res.status === 201 || res.status === 200) {
            accepted.push(((await res.json()) as { id: string }).id);
            return;
          }
          if (res.status < 500) throw new Error(`trigger refused: ${res.status} ${await res.text()}`);
          serverErrors.push(`${res.status} ${((await res.json()) as { code: string }).code}`);
        } catch (e) {
          if ((e as Error).message.startsWith("trigger refused")) throw e;
        }
        if (Date.now() > giveUp) throw new Error("no instance accepted a trigger for 60 s");
        await sleep(200);
      }
    }

    const startedAt = Date.now();
    const chaos = (async () => {
      // the scheduling instance dies 3 s before the first slot; its lease and its runs must pass to the others
      await sleepUntil(slot1 - 3000);
      const holder = (
        await sql<{ holder: string }>(dbUrl, "select owner as holder from leases where name = 'scheduler'")
      )[0];
      const leaderId = await leaderInstance(holder?.holder ?? "");
      const killed = instances.get(leaderId)!;
      const owned = async () =>
        (
          await sql<{ n: string }>(dbUrl, "select count(*) as n from runs where status = 'running' and owner like $1", [
            `${leaderId}:${killed.child.pid}:%`,
          ])
        )[0]!.n;
      killed.child.kill("SIGKILL");
      const killedAt = Date.now();
      const inFlight = await owned();
      await sleep(5000);
      instances.set(leaderId, await serve(leaderId));
      while (Number(await owned()) > 0) await sleep(100);
      console.log(
        `chaos: SIGKILL of ${leaderId} (scheduler leader, ${inFlight} runs executing); its runs were taken over ` +
          `${Date.now() - killedAt} ms later (heartbeat ${HEARTBEAT_MS} ms, stale ${STALE_MS} ms)`,
      );
      // the database goes away across the second slot
      await sleepUntil(slot2 - 500);
      const stopAt = Date.now();
      await cluster!.restart(2000);
      console.log(
        `chaos: PostgreSQL restarted, down ${Date.now() - stopAt} ms across ${new Date(slot2).toISOString()}`,
      );
    })();

    /** The instance id whose scheduler holds the lease: the one that logged acquiring it with that id. */
    async function leaderInstance(holder: string): Promise<string> {
      for (const [id, s] of instances) if (s.output().includes(holder)) return id;
      throw new Error(`no instance logged the scheduler lease ${holder}`);
    }

    for (let i = 0; i < RUNS; i++) {
      await sleepUntil(startedAt + i * pace);
      await trigger();
    }
    await chaos;

    // every run ends (the database restart fails runs it cut off; those stay failed)
    const deadline = Date.now() + 90_000;
    let open: { id: string; status: string }[] = [];
    do {
      await sleep(500);
      open = (
        await sql<{ id: string; status: string }>(dbUrl, "select id, status from runs where pipeline_id = $1", [
          work.id,
        ])
      ).filter((r) => !TERMINAL.has(r.status));
    } while (open.length > 0 && Date.now() < deadline);
    if (open.length > 0) {
      const owners = await sql(dbUrl, "select id, status, owner, heartbeat_at from runs where id = any($1)", [
        open.map((r) => r.id),
      ]);
      console.log(`chaos: runs not terminal: ${JSON.stringify(owners)}`);
      for (const [id, s] of instances) {
        const lines = s.output().split("\n");
        const related = lines.filter(
          (l) => /error|warn|taken over|interrupt/i.test(l) || open.some((r) => l.includes(r.id)),
        );
        console.log(`--- ${id} (${lines.length} lines) ---\n${related.slice(-60).join("\n")}`);
      }
    }
    expect(open).toEqual([]);

    const runs = await sql<{ id: string; status: string; error: string | null }>(
      dbUrl,
      "select id, status, error from runs where pipeline_id = $1",
      [work.id],
    );
    const writeAttempts = new Map(
      (
        await sql<{ run_id: string; attempt: number }>(
          dbUrl,
          "select run_id, attempt from node_runs where node_id = 'write' and run_id in " +
            "(select id from runs where pipeline_id = $1)",
          [work.id],
        )
      ).map((r) => [r.run_id, Number(r.attempt)]),
    );
    const rows = new Map(
      (await sql<{ run_id: string; writes: number }>(targetUrl, "select run_id, writes from chaos_rows")).map((r) => [
        r.run_id,
        Number(r.writes),
      ]),
    );
    const byId = new Map(runs.map((r) => [r.id, r]));
    expect(accepted.filter((id) => !byId.has(id))).toEqual([]); // every acknowledged run exists
    const successes = runs.filter((r) => r.status === "success");
    // each successful run wrote its row; no row belongs to a run that does not exist
    expect(successes.filter((r) => !rows.has(r.id)).map((r) => r.id)).toEqual([]);
    expect([...rows.keys()].filter((id) => !byId.has(id))).toEqual([]);
    // a row written twice only by a run whose sink was interrupted and retried, never by two executions at once
    const twice = [...rows].filter(([, writes]) => writes > 1);
    expect(twice.filter(([id]) => (writeAttempts.get(id) ?? 1) < 2)).toEqual([]);
    const failed = runs.filter((r) => r.status === "failed");
    console.log(
      `chaos: ${runs.length} runs (${accepted.length} acknowledged): ${successes.length} success, ${failed.length} ` +
        `failed (${[...new Set(failed.map((r) => r.error))].join("; ")}); ${rows.size} rows, ` +
        `${twice.length} written again by a resumed sink; ${Date.now() - startedAt} ms`,
    );
    expect(successes.length).toBeGreaterThan(RUNS / 2);
    expect(serverErrors.length).toBeGreaterThan(0); // triggers did meet the outage
    expect(new Set(serverErrors)).toEqual(new Set(["503 unavailable"]));

    // each slot of the `* * * * *` pipeline fired exactly once across the instances, through the kill and the restart
    const fired = await sql<{ schedule_slot: string | null; trigger: string }>(
      dbUrl,
      "select schedule_slot, trigger from runs where pipeline_id = $1 order by schedule_slot",
      [scheduled.id],
    );
    console.log(`chaos: schedule slots fired: ${fired.map((r) => `${r.schedule_slot} (${r.trigger})`).join(", ")}`);
    const slots = fired.map((r) => r.schedule_slot);
    expect(slots).toContain(new Date(slot1).toISOString());
    expect(slots).toContain(new Date(slot2).toISOString());
    expect(new Set(slots).size).toBe(slots.length);
    expect(slots).not.toContain(null);

    // every instance is back on the restarted database by itself and runs new work
    for (const s of instances.values()) {
      const run = await apiJson<{ id: string }>(s.url, `/pipelines/${work.id}/run`, {});
      let status = "pending";
      for (let i = 0; i < 200 && !TERMINAL.has(status); i++) {
        await sleep(100);
        status = (await apiJson<{ status: string }>(s.url, `/runs/${run.id}`)).status;
      }
      expect(status).toBe("success");
    }
  });
});
