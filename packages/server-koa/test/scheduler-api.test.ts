import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test-support/http.js";

/** A header value no run id, timestamp or log text can contain by chance (a short one like "abc" can: hex ids). */
const HEADER_SECRET = "x-secret-Zq9-never-logged";

interface StatusEntry {
  pipeline_id: string;
  pipeline_name: string;
  schedule: string | null;
  timezone: string;
  enabled: boolean;
  next_run: string | null;
  last_run: string | null;
}

const poll = async <T>(what: () => Promise<T | undefined>, timeoutMs: number): Promise<T> => {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await what();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 200));
  }
};

describe("scheduler on a real server", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("sqlite");
  });
  afterAll(async () => t?.close());

  const create = async (body: Record<string, unknown>) =>
    (await (await t.fetch("/pipelines", { method: "POST", json: body })).json()) as { id: string };
  const runsOf = async (id: string) =>
    (await (await t.fetch(`/pipelines/${id}/runs`)).json()) as { id: string; trigger: string; status: string }[];

  it(
    "a `* * * * *` schedule produces a `schedule` run within the minute; disabling unregisters it",
    { timeout: 75_000 },
    async () => {
      const p = await create({ name: "every-minute", schedule: "* * * * *", schedule_timezone: "Europe/Berlin" });
      const status = (await (await t.fetch("/scheduler/status")).json()) as StatusEntry[];
      const entry = status.find((s) => s.pipeline_id === p.id);
      expect(entry).toMatchObject({
        pipeline_name: "every-minute",
        schedule: "* * * * *",
        timezone: "Europe/Berlin",
        enabled: true,
        last_run: null,
      });
      expect(new Date(entry!.next_run!).getUTCSeconds()).toBe(0);
      expect(new Date(entry!.next_run!).getTime() - Date.now()).toBeLessThanOrEqual(60_000);

      const run = await poll(async () => (await runsOf(p.id))[0], 70_000);
      expect(run.trigger).toBe("schedule");

      await t.fetch(`/pipelines/${p.id}`, { method: "PUT", json: { enabled: false } });
      const after = (await (await t.fetch("/scheduler/status")).json()) as StatusEntry[];
      expect(after.find((s) => s.pipeline_id === p.id)).toMatchObject({ enabled: false, next_run: null });
      expect(after.find((s) => s.pipeline_id === p.id)?.last_run).not.toBeNull();
    },
  );

  it("GET /pipelines/{id}/deps reports each dependency's last status and whether it is satisfied", async () => {
    const upstream = await create({ name: "upstream" });
    const down = await create({ name: "down", depends_on: [upstream.id] });
    const before = (await (await t.fetch(`/pipelines/${down.id}/deps`)).json()) as unknown[];
    expect(before).toEqual([{ pipeline_id: upstream.id, name: "upstream", last_status: null, satisfied: false }]);

    const triggered = (await (await t.fetch(`/pipelines/${upstream.id}/run`, { method: "POST", json: {} })).json()) as {
      id: string;
    };
    await poll(async () => {
      const run = (await (await t.fetch(`/runs/${triggered.id}`)).json()) as { status: string };
      return run.status === "success" ? run : undefined;
    }, 10_000);
    const after = (await (await t.fetch(`/pipelines/${down.id}/deps`)).json()) as unknown[];
    expect(after).toEqual([{ pipeline_id: upstream.id, name: "upstream", last_status: "success", satisfied: true }]);
    expect((await t.fetch(`/pipelines/00000000-0000-0000-0000-000000000000/deps`)).status).toBe(404);
  });

  it("delivers a run.succeeded hook as a JSON POST to a local server and logs the delivery on the run", async () => {
    const received: { body: Record<string, unknown>; headers: http.IncomingHttpHeaders }[] = [];
    const peer = http.createServer((req, res) => {
      let data = "";
      req.on("data", (c: Buffer) => (data += c.toString()));
      req.on("end", () => {
        received.push({ body: JSON.parse(data) as Record<string, unknown>, headers: req.headers });
        res.writeHead(200).end("ok");
      });
    });
    await new Promise<void>((r) => peer.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(peer.address() as AddressInfo).port}/hook`;
      const p = await create({
        name: "hooked",
        hooks: [
          { event: "run.succeeded", type: "webhook", url, headers: { "x-secret": HEADER_SECRET }, enabled: true },
        ],
      });
      const triggered = (await (await t.fetch(`/pipelines/${p.id}/run`, { method: "POST", json: {} })).json()) as {
        id: string;
      };
      const hit = await poll(async () => received[0], 10_000);
      expect(hit.headers["content-type"]).toContain("application/json");
      expect(hit.headers["x-secret"]).toBe(HEADER_SECRET);
      expect(hit.body).toMatchObject({
        event: "run.succeeded",
        pipeline_id: p.id,
        run_id: triggered.id,
        status: "success",
      });
      const logs = await poll(async () => {
        const lines = (await (await t.fetch(`/runs/${triggered.id}/logs`)).json()) as { message: string }[];
        return lines.some((l) => /hook/i.test(l.message)) ? lines : undefined;
      }, 10_000);
      expect(JSON.stringify(logs)).not.toContain(HEADER_SECRET);
    } finally {
      peer.close();
    }
  });
});
