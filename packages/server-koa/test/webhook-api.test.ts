import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDialects } from "../../../test-support/databases.js";
import { startTestServer, type TestServer } from "../../../test-support/http.js";
import { usersPerRole } from "./auth/users.js";

const dialects = await testDialects();

describe.each(dialects)("%s webhook trigger", (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(dialect);
  });
  afterAll(async () => t?.close());

  const pipeline = async (webhook_token: string | null) =>
    (await (
      await t.fetch("/pipelines", { method: "POST", json: { name: `wh-${Math.random()}`, webhook_token } })
    ).json()) as { id: string };

  it(`${dialect}: without a configured token answers 403; a wrong or missing token 401`, async () => {
    const open = await pipeline(null);
    expect((await t.fetch(`/pipelines/${open.id}/webhook?token=x`, { method: "POST" })).status).toBe(403);
    const p = await pipeline("s3cret-token-0123456");
    const wrong = await t.fetch(`/pipelines/${p.id}/webhook?token=nope`, { method: "POST" });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toHaveProperty("error");
    expect((await t.fetch(`/pipelines/${p.id}/webhook`, { method: "POST" })).status).toBe(401);
    expect(
      (await t.fetch(`/pipelines/00000000-0000-0000-0000-000000000000/webhook?token=x`, { method: "POST" })).status,
    ).toBe(404);
  });

  it(`${dialect}: accepts the token in the query or X-Webhook-Token, queues a webhook run with the params, then rate-limits`, async () => {
    const p = await pipeline("tok-1-0123456789abcdef");
    const res = await t.fetch(`/pipelines/${p.id}/webhook?token=tok-1-0123456789abcdef`, {
      method: "POST",
      json: { params: { date: "2026-01-02" } },
    });
    expect(res.status).toBe(202);
    const accepted = (await res.json()) as { run_id: string; pipeline_id: string; status: string };
    expect(accepted).toMatchObject({ pipeline_id: p.id, status: "pending" });
    const run = (await (await t.fetch(`/runs/${accepted.run_id}`)).json()) as {
      trigger: string;
      params: Record<string, string>;
    };
    expect(run.trigger).toBe("webhook");
    expect(run.params).toMatchObject({ date: "2026-01-02" });

    const limited = await t.fetch(`/pipelines/${p.id}/webhook`, {
      method: "POST",
      headers: { "x-webhook-token": "tok-1-0123456789abcdef" },
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);

    const other = await pipeline("tok-2-0123456789abcdef");
    const viaHeader = await t.fetch(`/pipelines/${other.id}/webhook`, {
      method: "POST",
      headers: { "x-webhook-token": "tok-2-0123456789abcdef" },
    });
    expect(viaHeader.status).toBe(202);
  });

  it(`${dialect}: an Idempotency-Key repeat returns the same run instead of a new one (and is not rate-limited)`, async () => {
    const p = await pipeline("tok-3-0123456789abcdef");
    const send = () =>
      t.fetch(`/pipelines/${p.id}/webhook?token=tok-3-0123456789abcdef`, {
        method: "POST",
        headers: { "idempotency-key": "evt-42" },
      });
    const first = (await (await send()).json()) as { run_id: string };
    const again = await send();
    expect(again.status).toBe(202);
    expect(((await again.json()) as { run_id: string }).run_id).toBe(first.run_id);
    const runs = (await (await t.fetch(`/pipelines/${p.id}/runs`)).json()) as unknown[];
    expect(runs).toHaveLength(1);
  });

  it(`${dialect}: repeats of an Idempotency-Key sent at once (a sender's retry racing its first try) get the same run`, async () => {
    const p = await pipeline("tok-5-0123456789abcdef");
    const send = () =>
      t.fetch(`/pipelines/${p.id}/webhook?token=tok-5-0123456789abcdef`, {
        method: "POST",
        headers: { "idempotency-key": "evt-race" },
      });
    const answers = await Promise.all([send(), send(), send()]);
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202]);
    const ids = await Promise.all(answers.map(async (a) => ((await a.json()) as { run_id: string }).run_id));
    expect(new Set(ids).size).toBe(1);
    const runs = (await (await t.fetch(`/pipelines/${p.id}/runs`)).json()) as unknown[];
    expect(runs).toHaveLength(1);
  });

  it(`${dialect}: two long Idempotency-Keys that share their first 200 characters are two keys`, async () => {
    const p = await pipeline("tok-6-0123456789abcdef");
    const send = (key: string) =>
      t.fetch(`/pipelines/${p.id}/webhook?token=tok-6-0123456789abcdef`, {
        method: "POST",
        headers: { "idempotency-key": key },
      });
    const first = await send(`${"k".repeat(200)}-one`);
    expect(first.status).toBe(202);
    // a different key: a new trigger, which the rate limit (one per 10 s) refuses; the same key would be 202
    expect((await send(`${"k".repeat(200)}-two`)).status).toBe(429);
    expect((await send(`${"k".repeat(200)}-one`)).status).toBe(202);
  });

  it(`${dialect}: a trigger refused because the graph is invalid (422) does not count toward the rate limit`, async () => {
    const token = "tok-422-0123456789abcdef";
    const created = await t.fetch("/pipelines", {
      method: "POST",
      json: {
        name: `wh-422-${Math.random()}`,
        webhook_token: token,
        nodes: [{ id: "c", type: "condition", config: {} }],
      },
    });
    const p = (await created.json()) as { id: string };
    const refused = await t.fetch(`/pipelines/${p.id}/webhook?token=${token}`, { method: "POST" });
    expect(refused.status).toBe(422);
    expect((await (await t.fetch(`/pipelines/${p.id}/runs`)).json()) as unknown[]).toHaveLength(0);
    // fixed at once: the next trigger is the first accepted, not one within 10 s of it
    const fixed = await t.fetch(`/pipelines/${p.id}`, {
      method: "PUT",
      json: { nodes: [{ id: "c", type: "condition", config: { expression: "true" } }] },
    });
    expect(fixed.status).toBe(200);
    expect((await t.fetch(`/pipelines/${p.id}/webhook?token=${token}`, { method: "POST" })).status).toBe(202);
    expect((await t.fetch(`/pipelines/${p.id}/webhook?token=${token}`, { method: "POST" })).status).toBe(429);
  });

  it(`${dialect}: rejects a malformed body with 400 and no run`, async () => {
    const p = await pipeline("tok-4-0123456789abcdef");
    const bad = await t.fetch(`/pipelines/${p.id}/webhook?token=tok-4-0123456789abcdef`, {
      method: "POST",
      json: { params: { n: 5 } },
    });
    expect(bad.status).toBe(400);
    const runs = (await (await t.fetch(`/pipelines/${p.id}/runs`)).json()) as unknown[];
    expect(runs).toHaveLength(0);
  });
});

describe("webhook with users", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("sqlite");
  });
  afterAll(async () => t?.close());

  it("needs no API credentials, only its own token", async () => {
    const tokens = await usersPerRole(t);
    const created = await t.fetch("/pipelines", {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.editor}` },
      json: { name: "auth-wh", webhook_token: "tok-auth-0123456789abcdef" },
    });
    const p = (await created.json()) as { id: string };
    expect(
      (await t.fetch(`/pipelines/${p.id}/webhook?token=tok-auth-0123456789abcdef`, { method: "POST" })).status,
    ).toBe(202);
    expect((await t.fetch(`/pipelines/${p.id}/webhook?token=bad`, { method: "POST" })).status).toBe(401);
  });
});
