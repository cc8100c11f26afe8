// Cron lateness and idle cost: 200 pipelines scheduled every minute (target: each run created within 1 s of its
// slot, p99; scheduler < 5% of one core between slots). Baseline in the same run: a bare setTimeout aimed at the
// same slot, i.e. how late Node itself fires on this machine.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSluice, silentLogger, storeOf } from "@sluice/core";
import { answerHelp } from "./lib/help.mjs";

answerHelp();

const PIPELINES = 200;
const SLOTS = Number(process.env.SLOTS ?? 2);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-bench-sched-"));
const sluice = await createSluice({
  database: path.join(dir, "bench.db"),
  logger: silentLogger,
  jwtSecret: "0".repeat(64),
});
for (let i = 0; i < PIPELINES; i++) await sluice.pipelines.create({ name: `every minute ${i}`, schedule: "* * * * *" });
await sluice.start();

const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const nextMinute = () => Math.ceil((Date.now() + 1) / 60_000) * 60_000;

const baseline = [];
const lateness = [];
const idleCpu = [];
for (let s = 0; s < SLOTS; s++) {
  const slot = nextMinute();
  // idle window: from 5 s after the previous activity until 1 s before the slot
  const idleStart = Date.now();
  const cpu0 = process.cpuUsage();
  const fired = await new Promise((resolve) => setTimeout(() => resolve(Date.now()), slot - Date.now()));
  baseline.push(fired - slot);
  const cpu = process.cpuUsage(cpu0);
  const wall = fired - idleStart;
  if (wall > 5000) idleCpu.push(((cpu.user + cpu.system) / 1000 / wall) * 100);
  await new Promise((r) => setTimeout(r, 5000));
  const rows = await storeOf(sluice)
    .knex("runs")
    .where("trigger", "schedule")
    .where("created_at", ">=", new Date(slot).toISOString())
    .select("created_at");
  for (const row of rows) lateness.push(new Date(row.created_at).getTime() - slot);
  console.log(`slot ${new Date(slot).toISOString()}: ${rows.length}/${PIPELINES} scheduled runs created`);
}
await sluice.close();
fs.rmSync(dir, { recursive: true, force: true });

console.log(`runs measured: ${lateness.length} (expected ${PIPELINES * SLOTS})`);
console.log(
  `lateness p50 ${pct(lateness, 50)} ms, p99 ${pct(lateness, 99)} ms, max ${Math.max(...lateness)} ms (target p99 ≤ 1000 ms)`,
);
console.log(`baseline bare setTimeout lateness: max ${Math.max(...baseline)} ms`);
console.log(
  `process CPU while idle between slots: ${idleCpu.map((c) => c.toFixed(2)).join(", ")} % of one core (target < 5%; includes the executor's own idle cost)`,
);
