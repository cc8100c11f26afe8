/**
 * Role × route (issue 14): the server holds every kind of secret — a connection password, tokens and secret keys
 * in `extra`, a secret variable rendered into a run (URL, header), a webhook token, hooks carrying credentials —
 * and a run has used them. Then a viewer GETs every GET route the app registers (enumerated from the router, so a
 * new route is covered without touching this file) with real ids, and no answer may contain any secret value.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { isTerminalRunStatus, type Role } from "../../../core/src/index.js";
import { registeredRoutes } from "../../src/index.js";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { bearer, usersPerRole } from "../auth/users.js";

const secret = (label: string) => `${label}-${randomBytes(12).toString("hex")}`;
const SECRETS = {
  connPassword: secret("conn-password"),
  extraToken: secret("extra-token"),
  s3SecretKey: secret("s3-secret-key"),
  sftpPrivateKey: secret("sftp-private-key"),
  variable: secret("variable-secret"),
  webhookToken: secret("webhook-token"),
  hookHeader: secret("hook-header"),
  hookUrl: secret("hook-url"),
};

let t: TestServer;
let tokens: Record<Role, string>;
let receiver: http.Server;
let receiverUrl = "";
let pipelineId = "";
let runId = "";
let versionIds: string[] = [];
const nodeIds = ["fetch_rows", "fetch_broken"];
const connIds = ["crm", "lake", "files"];

const as = (role: Role, path: string, init: RequestInit & { json?: unknown } = {}) =>
  t.fetch(path, {
    ...init,
    headers: { ...bearer(tokens[role]), ...(init.headers as Record<string, string> | undefined) },
  });

async function created(response: Promise<Response>): Promise<Record<string, unknown>> {
  const r = await response;
  if (r.status >= 300) throw new Error(`setup failed: ${r.status} ${await r.text()}`);
  return (await r.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  // the API the pipeline reads and the hooks' target, both on this machine
  receiver = http.createServer((req, res) => {
    req.resume();
    const ok = req.url?.startsWith("/rows");
    res.writeHead(ok ? 200 : 500, { "content-type": "application/json" });
    res.end(
      ok
        ? JSON.stringify([
            { id: 1, name: "a" },
            { id: 2, name: "b" },
          ])
        : JSON.stringify({ error: "boom" }),
    );
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  t = await startTestServer("sqlite");
  tokens = await usersPerRole(t);
  await created(
    as("editor", "/connections", {
      method: "POST",
      json: {
        conn_id: "crm",
        type: "http",
        host: receiverUrl,
        login: "svc",
        password: SECRETS.connPassword,
        extra: { token: SECRETS.extraToken },
      },
    }),
  );
  await created(
    as("editor", "/connections", {
      method: "POST",
      json: {
        conn_id: "lake",
        type: "s3",
        extra: {
          bucket: "b",
          region: "eu-west-1",
          access_key_id: "AKIAEXAMPLE",
          secret_access_key: SECRETS.s3SecretKey,
        },
      },
    }),
  );
  await created(
    as("editor", "/connections", {
      method: "POST",
      json: {
        conn_id: "files",
        type: "sftp",
        host: "sftp.invalid",
        login: "u",
        password: SECRETS.connPassword,
        extra: { private_key: SECRETS.sftpPrivateKey },
      },
    }),
  );
  await created(
    as("editor", "/variables", {
      method: "POST",
      json: { key: "api_secret", value: SECRETS.variable, type: "secret" },
    }),
  );

  const pipeline = await created(
    as("editor", "/pipelines", {
      method: "POST",
      json: {
        name: "secret-heavy",
        description: "uses every kind of secret",
        webhook_token: SECRETS.webhookToken,
        nodes: [
          {
            id: "fetch_rows",
            type: "source_api",
            name: "rows",
            config: { conn_id: "crm", path: "/rows?sig=${var.api_secret}", headers: { "x-sig": "${var.api_secret}" } },
          },
          {
            id: "fetch_broken",
            type: "source_api",
            name: "broken",
            config: { conn_id: "crm", path: "/broken?sig=${var.api_secret}" },
          },
        ],
        edges: [],
        hooks: [
          {
            event: "run.started",
            url: `${receiverUrl}/hooks/${SECRETS.hookUrl}`,
            headers: { authorization: `Bearer ${SECRETS.hookHeader}` },
          },
          {
            event: "run.failed",
            url: `${receiverUrl}/hooks/${SECRETS.hookUrl}`,
            headers: { authorization: `Bearer ${SECRETS.hookHeader}` },
          },
        ],
      },
    }),
  );
  pipelineId = pipeline.id as string;
  // a second version, so the version route shows two snapshots of the secret-heavy definition
  await created(as("editor", `/pipelines/${pipelineId}`, { method: "PUT", json: { description: "changed" } }));
  versionIds = (
    (await created(as("editor", `/pipelines/${pipelineId}/versions`))) as unknown as { version_id: string }[]
  ).map((v) => v.version_id);
  runId = (await created(as("editor", `/pipelines/${pipelineId}/run`, { method: "POST", json: {} }))).id as string;
  const until = Date.now() + 60_000;
  for (;;) {
    const run = (await (await as("editor", `/runs/${runId}`)).json()) as { status: string };
    if (isTerminalRunStatus(run.status)) break;
    if (Date.now() > until) throw new Error(`run still ${run.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 120_000);

afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

/** Every concrete URL for a route pattern, with the real ids made above; an unknown parameter fails the test. */
function urlsFor(path: string): string[] {
  const values: Record<string, readonly string[]> = {
    id: [pipelineId],
    pipeline_id: [pipelineId],
    run_id: [runId],
    node_id: nodeIds,
    conn_id: connIds,
    key: ["api_secret"],
    version_id: versionIds,
  };
  let urls = [path];
  for (const name of path.match(/:[A-Za-z0-9_]+/g) ?? []) {
    const options = values[name.slice(1)];
    if (!options) throw new Error(`route ${path}: no test value for ${name}; add one here`);
    urls = urls.flatMap((u) => options.map((v) => u.replace(name, encodeURIComponent(v))));
  }
  // query variants that make a route show more
  const extra: Record<string, readonly string[]> = {
    "/search": ["?q=secret", "?q=crm", "?q=api", "?q=lake"],
    "/pipelines/:id/dlq": ["", "?include_resolved=true"],
    "/pipelines": ["", "?page=1&per_page=50"],
    "/connections": ["", "?page=1"],
    "/variables": ["", "?page=1"],
    "/pipelines/:id/runs": ["", "?page=1", "?include=nodes"],
    "/runs/calendar": ["", `?pipeline_id=${pipelineId}`],
  };
  return urls.flatMap((u) => (extra[path] ?? [""]).map((q) => `${u}${q}`));
}

it("a viewer GETs every GET route and finds no secret value in any answer", async () => {
  const routes = registeredRoutes(t.server.app).filter((r) => r.method === "GET");
  expect(routes.length).toBeGreaterThan(30);
  const leaks: string[] = [];
  const statuses: string[] = [];
  for (const route of routes) {
    for (const url of urlsFor(route.path)) {
      const response = await fetch(`${t.baseUrl}${route.prefix}${url}`, { headers: bearer(tokens.viewer) });
      const text = await response.text();
      statuses.push(`${response.status} ${route.prefix}${url}`);
      expect(response.status, `${url}: ${text.slice(0, 200)}`).toBeLessThan(500);
      for (const [name, value] of Object.entries(SECRETS)) {
        if (text.includes(value)) leaks.push(`${route.prefix}${url} shows ${name}`);
      }
      for (const [header, value] of response.headers) {
        for (const [name, s] of Object.entries(SECRETS))
          if (value.includes(s)) leaks.push(`${url} header ${header} shows ${name}`);
      }
    }
  }
  expect(leaks).toEqual([]);
  // the walk really reached the run's data, not only refusals
  for (const reached of [
    `200 /api/pipelines/${pipelineId}`,
    `200 /api/runs/${runId}/logs`,
    `200 /api/pipelines/${pipelineId}/dlq`,
    `200 /api/pipelines/${pipelineId}/versions/${versionIds[0]}`,
    `200 /api/pipelines/${pipelineId}/runs?include=nodes`,
    "200 /api/connections",
  ]) {
    expect(statuses).toContain(reached);
  }
  expect(statuses).toContain("403 /api/connections/crm");
}, 120_000);

it("(control) the secrets are really there: editors read them where they belong", async () => {
  expect(await (await as("editor", "/connections/crm")).text()).toContain(SECRETS.extraToken);
  expect(await (await as("editor", "/connections/lake")).text()).toContain(SECRETS.s3SecretKey);
  expect(await (await as("editor", `/pipelines/${pipelineId}`)).text()).toContain(SECRETS.webhookToken);
  expect(await (await as("editor", `/pipelines/${pipelineId}`)).text()).toContain(SECRETS.hookHeader);
  const run = (await (await as("editor", `/runs/${runId}`)).json()) as {
    status: string;
    node_runs: { node_id: string; status: string }[];
  };
  expect(run.status).toBe("failed");
  expect(run.node_runs.find((n) => n.node_id === "fetch_rows")?.status).toBe("success");
});

it("a viewer sees that hooks and a webhook exist, not their credentials", async () => {
  const pipeline = (await (await as("viewer", `/pipelines/${pipelineId}`)).json()) as {
    webhook_configured: boolean;
    hooks: { event: string; url: string; headers: Record<string, string> }[];
  };
  expect(pipeline.webhook_configured).toBe(true);
  expect(pipeline.hooks[0]).toMatchObject({
    event: "run.started",
    url: `${receiverUrl}/********`,
    headers: { authorization: "********" },
  });
});
