import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, tempDir, testDialects } from "../../../test-support/databases.js";

const BIN = fileURLToPath(new URL("../bin/sluice.js", import.meta.url));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

interface Served {
  url: string;
  output: () => string;
}

function serve(db: string, cwd: string): Promise<Served> {
  const child = spawn(process.execPath, [BIN, "serve", "--host", "127.0.0.1", "--port", "0", "--db", db], {
    cwd,
    env: { ...process.env, SVC_JWT_SECRET: "5".repeat(64), SLUICE_SECRET_KEY: "6".repeat(64) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    child.stderr?.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 60_000);
    child.stdout?.on("data", () => {
      const m = /listening on (http:\/\/\S+?)\/api/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ url: m[1], output: () => out });
      }
    });
    child.once("exit", (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
}

const pgAvailable = (await testDialects()).includes("postgres");

describe("two sluice processes on one PostgreSQL database", () => {
  it.runIf(pgAvailable)("each `* * * * *` slot fires exactly once", { timeout: 200_000 }, async () => {
    const db = await createTestDatabase("postgres");
    const cwd = tempDir();
    try {
      const servers = await Promise.all([serve(db.url, cwd), serve(db.url, cwd)]);
      const leads = (s: Served) => s.output().includes("scheduler lease acquired");
      await vi.waitFor(() => expect(servers.filter(leads)).toHaveLength(1), { timeout: 10_000 });
      // create it through the instance that does NOT schedule: the leader must learn of it from the database
      const follower = servers.find((s) => !leads(s)) as Served;
      const leader = servers.find(leads) as Served;
      const created = await fetch(`${follower.url}/api/pipelines`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "every minute, two schedulers", schedule: "* * * * *" }),
      });
      const { id } = (await created.json()) as { id: string };
      expect((await fetch(`${leader.url}/api/pipelines/${id}`)).status).toBe(200);
      // wait for two slot boundaries after creation; the first at least 15 s after it, so the leader has certainly
      // read the new pipeline from the database (created just before a minute boundary, that slot could be missed)
      const firstSlot = Math.ceil((Date.now() + 15_000) / 60_000) * 60_000;
      const secondSlot = firstSlot + 60_000;
      await new Promise((r) => setTimeout(r, secondSlot - Date.now() + 5_000));
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const { rows } = await client.query<{ created_at: string }>(
        "select created_at from runs where pipeline_id = $1 and trigger = 'schedule' order by created_at",
        [id],
      );
      await client.end();
      const minutes = rows.map((r) => Math.floor(Date.parse(r.created_at) / 60_000) * 60_000);
      expect(minutes).toContain(firstSlot);
      expect(minutes).toContain(secondSlot);
      expect(new Set(minutes).size).toBe(minutes.length); // no slot twice
    } finally {
      for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
      await new Promise((r) => setTimeout(r, 500));
      await db.drop();
    }
  });
});
