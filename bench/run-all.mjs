// Runs every benchmark script in bench/ (built packages are used: run `npm run build` first). The product's
// figures are http-throughput.mjs and http-chain-40.mjs (a real `sluice serve` over HTTP and the WebSocket).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { answerHelp } from "./lib/help.mjs";

answerHelp();

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
// tools, not benchmarks (helpers live in bench/lib/, which is not listed)
const NOT_BENCHMARKS = new Set(["run-all.mjs", "profile-summary.mjs"]);
let failed = 0;
for (const file of fs
  .readdirSync(dir)
  .filter((f) => f.endsWith(".mjs") && !NOT_BENCHMARKS.has(f))
  .sort()) {
  if (only && !file.includes(only)) continue;
  console.log(`\n=== ${file}`);
  const res = spawnSync(process.execPath, [path.join(dir, file)], { stdio: "inherit" });
  if (res.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
