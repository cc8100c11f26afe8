// Login timing: an unknown username must cost the same as a wrong password (no user enumeration by timing).
// Needs `npm run build`. Usage: node bench/login-timing.mjs [rounds]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSluice, silentLogger, storeOf } from "@sluice/core";
import { answerHelp } from "./lib/help.mjs";

answerHelp();

const rounds = Number(process.argv[2] ?? 30);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-bench-"));
const sluice = await createSluice({
  database: path.join(dir, "bench.db"),
  logger: silentLogger,
  jwtSecret: "b".repeat(64),
});
await sluice.auth.createUser(
  { kind: "anonymous", user: { id: "x", username: "x", role: "superadmin" } },
  {
    username: "known",
    password: "correct horse battery",
  },
);

async function time(username) {
  const start = process.hrtime.bigint();
  await sluice.auth.login({ username, password: "wrong password" }).catch(() => undefined);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const known = [];
const unknown = [];
// alternate, and use a fresh username for every unknown attempt so the lockout never kicks in
for (let i = 0; i < rounds; i++) {
  if (i % 4 === 0) await storeOf(sluice).loginAttempts.clear("known");
  known.push(await time("known"));
  unknown.push(await time(`nobody-${i}`));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const k = median(known);
const u = median(unknown);
console.log(
  `login, wrong password: median ${k.toFixed(1)} ms; unknown user: median ${u.toFixed(1)} ms; ratio ${(u / k).toFixed(2)}`,
);
await sluice.close();
fs.rmSync(dir, { recursive: true, force: true });
if (Math.abs(u / k - 1) > 0.25) {
  console.error("unknown-user and wrong-password logins differ by more than 25%");
  process.exit(1);
}
