/**
 * Attack: an editor stores a connection whose host name resolves to the cloud-metadata service and asks the server to
 * test it (`POST /connections/{id}/test`), to probe or reach 169.254.169.254 from the server. Refused for every type
 * that opens a network connection, before any connection is made. DNS is the server's resolver seam: the names
 * "resolve" to metadata addresses without a packet leaving 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DnsResolver } from "../../../core/src/engine/http/address-guard.js";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { capturingLogger, runPipeline } from "./attack-support.js";

/** Names an attacker controls, each answering with one spelling of the metadata address. */
const ANSWERS: Record<string, string> = {
  "v4.attacker.test": "169.254.169.254",
  "nat64.attacker.test": "64:ff9b::a9fe:a9fe",
  "mapped.attacker.test": "::ffff:169.254.169.254",
  "nat64local.attacker.test": "64:ff9b:1::a9fe:a9fe",
  "sixtofour.attacker.test": "2002:a9fe:a9fe::",
};
const asked: string[] = [];
const resolver: DnsResolver = async (hostname) => {
  asked.push(hostname);
  // AWS host names of an s3 connection without endpoint, and anything else, land on the metadata address too
  const address = ANSWERS[hostname] ?? "169.254.169.254";
  return [{ address, family: address.includes(":") ? 6 : 4 }];
};

const logger = capturingLogger();
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer("sqlite", { logger, resolver });
});
afterAll(async () => t?.close());

const s3Extra = (endpoint?: string) =>
  JSON.stringify({
    bucket: "b",
    region: "us-east-1",
    access_key_id: "AK",
    secret_access_key: "SK",
    ...(endpoint ? { endpoint } : {}),
  });

const connectionsFor = (name: string) => [
  { type: "postgres", host: name, port: 5432, schema: "db", login: "u", password: "p" },
  { type: "mysql", host: name, port: 3306, schema: "db", login: "u", password: "p" },
  { type: "http", host: `http://${name}/latest/meta-data/` },
  { type: "sftp", host: name, port: 22, login: "u", password: "p" },
  { type: "s3", extra: s3Extra(`http://${name}`) },
  { type: "generic", host: name, port: 80 },
];

describe("POST /connections/{id}/test never reaches a link-local or cloud-metadata address", () => {
  for (const name of Object.keys(ANSWERS)) {
    it.each(connectionsFor(name).map((c) => [c.type, c] as const))(
      `%s whose host '${name}' resolves to ${ANSWERS[name]}`,
      async (type, conn) => {
        const connId = `${type}-${name.split(".")[0]}`;
        expect((await t.fetch("/connections", { method: "POST", json: { conn_id: connId, ...conn } })).status).toBe(
          201,
        );
        const before = { asked: asked.length, log: logger.lines.length };
        const result = (await (await t.fetch(`/connections/${connId}/test`, { method: "POST" })).json()) as {
          success: boolean;
        };
        expect(result.success).toBe(false);
        expect(asked.slice(before.asked)).toContain(name);
        // the cause in the server log is the guard's refusal, not a timeout or a refused connection
        expect(logger.lines.slice(before.log).join("\n")).toMatch(/link-local or a cloud-metadata address/);
      },
    );
  }

  it("s3 with AWS's own host names (no endpoint) goes through the same guard", async () => {
    await t.fetch("/connections", { method: "POST", json: { conn_id: "s3-aws", type: "s3", extra: s3Extra() } });
    const before = { asked: asked.length, log: logger.lines.length };
    expect((await (await t.fetch("/connections/s3-aws/test", { method: "POST" })).json()) as unknown).toMatchObject({
      success: false,
    });
    expect(asked.slice(before.asked).some((h) => h.endsWith(".amazonaws.com"))).toBe(true);
    expect(logger.lines.slice(before.log).join("\n")).toMatch(/link-local or a cloud-metadata address/);
  });
});

describe("pipelines never reach a link-local or cloud-metadata address either", () => {
  it("source_api, notify and a hook to names resolving to metadata addresses are refused (node errors, hook log)", async () => {
    const nodes = [
      { id: "imds", type: "source_api", config: { url: "http://v4.attacker.test/latest/meta-data/iam" } },
      { id: "ping", type: "notify", config: { url: "http://nat64.attacker.test/hook" } },
    ];
    const hooks = [{ event: "run.failed", url: "http://mapped.attacker.test/collect" }];
    const { run } = await runPipeline(t, { name: "imds", nodes, edges: [], hooks });
    expect(run.status).toBe("failed");
    for (const id of ["imds", "ping"]) {
      expect(run.node_runs.find((n) => n.node_id === id)?.error).toMatch(/link-local or a cloud-metadata address/);
    }
    await t.sluice.hooks.idle();
    const logs = await (await t.fetch(`/runs/${run.id}/logs`)).text();
    expect(logs).toMatch(
      /hook #1 \(http:\/\/mapped\.attacker\.test\) run\.failed failed after \d+ attempts: .*link-local or a cloud-metadata/,
    );
  });
});
