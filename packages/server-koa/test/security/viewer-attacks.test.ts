/**
 * A viewer after secrets (issue 14): the decrypted `extra` of a connection, a pipeline's webhook token — and with
 * it, triggering the pipeline through `/webhook` with parameters of its choosing. Each test sends what the viewer
 * would and asserts the attack fails and the answer carries no secret.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, storeOf, type Role } from "../../../core/src/index.js";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { bearer, usersPerRole } from "../auth/users.js";

const secret = (label: string) => `${label}-${randomBytes(12).toString("hex")}`;
const CONN_PASSWORD = secret("conn-password");
const EXTRA_TOKEN = secret("extra-token");
const WEBHOOK_TOKEN = secret("webhook-token");

let t: TestServer;
let tokens: Record<Role, string>;
let pipelineId: string;

const as = (role: Role, path: string, init: RequestInit & { json?: unknown } = {}) =>
  t.fetch(path, {
    ...init,
    headers: { ...bearer(tokens[role]), ...(init.headers as Record<string, string> | undefined) },
  });

beforeAll(async () => {
  t = await startTestServer("sqlite");
  tokens = await usersPerRole(t);
  const conn = await as("editor", "/connections", {
    method: "POST",
    json: {
      conn_id: "crm",
      type: "http",
      host: "https://crm.invalid",
      password: CONN_PASSWORD,
      extra: { token: EXTRA_TOKEN },
    },
  });
  expect(conn.status).toBe(201);
  const created = await as("editor", "/pipelines", {
    method: "POST",
    json: { name: "nightly-crm", webhook_token: WEBHOOK_TOKEN },
  });
  expect(created.status).toBe(201);
  pipelineId = ((await created.json()) as { id: string }).id;
});
afterAll(async () => t?.close());

describe("viewer → GET /connections/{conn_id}", () => {
  it("is refused with 403 and the body names no password or extra", async () => {
    const response = await as("viewer", "/connections/crm");
    expect(response.status).toBe(403);
    const text = await response.text();
    expect(text).not.toContain(EXTRA_TOKEN);
    expect(text).not.toContain(CONN_PASSWORD);
    expect(text).not.toContain("extra");
  });

  it("(control) an editor does get extra decrypted, so the 403 is what protects it", async () => {
    const response = await as("editor", "/connections/crm");
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(EXTRA_TOKEN);
  });
});

describe("viewer → webhook token", () => {
  it("no pipeline response shows the viewer the token; GET says webhook_configured: true", async () => {
    const paths = [
      `/pipelines/${pipelineId}`,
      "/pipelines",
      "/pipelines?page=1&per_page=10",
      "/pipelines/summary",
      `/pipelines/${pipelineId}/export`,
      `/pipelines/${pipelineId}/versions`,
      "/search?q=nightly",
      "/dashboard",
    ];
    for (const path of paths) {
      const response = await as("viewer", path);
      expect(response.status, path).toBe(200);
      const text = await response.text();
      expect(text, path).not.toContain(WEBHOOK_TOKEN);
      expect(text, path).not.toContain("webhook_token");
    }
    const pipeline = (await (await as("viewer", `/pipelines/${pipelineId}`)).json()) as Record<string, unknown>;
    expect(pipeline.webhook_configured).toBe(true);
    // editors see the token itself
    const forEditor = (await (await as("editor", `/pipelines/${pipelineId}`)).json()) as Record<string, unknown>;
    expect(forEditor.webhook_token).toBe(WEBHOOK_TOKEN);
  });

  it("a viewer triggering the webhook without the token, or with a guess, is refused and no run starts", async () => {
    const attempts = [
      as("viewer", `/pipelines/${pipelineId}/webhook`, { method: "POST", json: { params: { day: "1970-01-01" } } }),
      as("viewer", `/pipelines/${pipelineId}/webhook?token=${"x".repeat(16)}`, {
        method: "POST",
        json: { params: { day: "1970-01-01" } },
      }),
      t.fetch(`/pipelines/${pipelineId}/webhook`, { method: "POST", headers: { "x-webhook-token": "" } }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(401);
      expect(await response.text()).not.toContain(WEBHOOK_TOKEN);
    }
    // nor can the viewer run it directly
    expect((await as("viewer", `/pipelines/${pipelineId}/run`, { method: "POST", json: {} })).status).toBe(403);
    const runs = (await (await as("editor", `/pipelines/${pipelineId}/runs`)).json()) as unknown[];
    expect(runs).toEqual([]);
  });

  it("a token shorter than 16 characters is refused (400); empty or null clears it", async () => {
    const short = await as("editor", "/pipelines", {
      method: "POST",
      json: { name: "short-token", webhook_token: "guessable" },
    });
    expect(short.status).toBe(400);
    expect(await short.text()).toContain("16");
    const p = (await (
      await as("editor", "/pipelines", { method: "POST", json: { name: "clearable", webhook_token: secret("t") } })
    ).json()) as { id: string };
    expect(
      (await as("editor", `/pipelines/${p.id}`, { method: "PUT", json: { webhook_token: "123456789012345" } })).status,
    ).toBe(400);
    const cleared = await as("editor", `/pipelines/${p.id}`, { method: "PUT", json: { webhook_token: "" } });
    expect(((await cleared.json()) as { webhook_token: unknown }).webhook_token).toBeNull();
    expect(
      ((await (await as("viewer", `/pipelines/${p.id}`)).json()) as { webhook_configured: unknown }).webhook_configured,
    ).toBe(false);
    expect((await as("editor", `/pipelines/${p.id}`, { method: "PUT", json: { webhook_token: null } })).status).toBe(
      200,
    );
  });

  it("version snapshots never hold the token, and a rollback keeps the current one", async () => {
    const first = secret("first-token");
    const current = secret("current-token");
    const p = (await (
      await as("editor", "/pipelines", { method: "POST", json: { name: "versioned", webhook_token: first } })
    ).json()) as { id: string };
    await as("editor", `/pipelines/${p.id}`, { method: "PUT", json: { webhook_token: current, description: "v2" } });
    const versions = (await (await as("editor", `/pipelines/${p.id}/versions`)).json()) as {
      version_id: string;
      version: number;
    }[];
    for (const v of versions) {
      const stored = await storeOf(t.sluice).pipelines.getVersion(p.id, v.version_id);
      expect(JSON.stringify(stored?.snapshot)).not.toContain(first);
      expect(JSON.stringify(stored?.snapshot)).not.toContain(current);
    }
    const v1 = versions.find((v) => v.version === 1);
    const rolled = await as("editor", `/pipelines/${p.id}/rollback`, {
      method: "POST",
      json: { version_id: v1?.version_id },
    });
    expect(rolled.status).toBe(200);
    expect(await rolled.json()).toMatchObject({ description: "", webhook_token: current });
  });

  it("GET /pipelines/{id}/versions/{version_id} shows no token to anyone, even from a snapshot that stored one", async () => {
    const current = secret("current-token");
    const legacy = secret("legacy-token");
    const hookHeader = secret("hook-header");
    const p = (await (
      await as("editor", "/pipelines", {
        method: "POST",
        json: {
          name: "versions-route",
          webhook_token: current,
          hooks: [
            { event: "run.failed", url: "https://hooks.invalid/T0/B0/x", headers: { authorization: hookHeader } },
          ],
        },
      })
    ).json()) as { id: string };
    // a snapshot written before snapshots dropped the token: the route must not hand it out either
    const legacyVersionId = newId();
    const [first] = (await (await as("editor", `/pipelines/${p.id}/versions`)).json()) as { version_id: string }[];
    const stored = await storeOf(t.sluice).pipelines.getVersion(p.id, first!.version_id);
    await storeOf(t.sluice)
      .knex("pipeline_versions")
      .insert({
        id: legacyVersionId,
        pipeline_id: p.id,
        version: 99,
        message: "written by an older sluice",
        snapshot: JSON.stringify({ ...stored!.snapshot, webhook_token: legacy }),
        created_at: new Date().toISOString(),
      });
    const versions = (await (await as("viewer", `/pipelines/${p.id}/versions`)).json()) as { version_id: string }[];
    expect(versions.map((v) => v.version_id)).toContain(legacyVersionId);

    for (const v of versions) {
      const viewer = await as("viewer", `/pipelines/${p.id}/versions/${v.version_id}`);
      expect(viewer.status).toBe(200);
      const text = await viewer.text();
      for (const value of [current, legacy, hookHeader, "webhook_token", "/T0/B0/x"]) expect(text).not.toContain(value);
      const body = JSON.parse(text) as { snapshot: { hooks: { headers: Record<string, string>; url: string }[] } };
      expect(body.snapshot.hooks[0]).toMatchObject({
        url: "https://hooks.invalid/********",
        headers: { authorization: "********" },
      });
      // editors see the hook (theirs to edit) but no token either: a version is history, the token a credential
      const editor = await (await as("editor", `/pipelines/${p.id}/versions/${v.version_id}`)).text();
      expect(editor).toContain(hookHeader);
      for (const value of [current, legacy, "webhook_token"]) expect(editor).not.toContain(value);
    }
  });

  it("export and clone carry no token", async () => {
    const exported = await as("editor", `/pipelines/${pipelineId}/export`);
    expect(await exported.text()).not.toContain(WEBHOOK_TOKEN);
    const clone = await as("editor", `/pipelines/${pipelineId}/clone`, { method: "POST" });
    expect(clone.status).toBe(201);
    expect(await clone.json()).toMatchObject({ webhook_token: null });
  });
});
