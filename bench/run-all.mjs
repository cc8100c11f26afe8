// Runs every benchmark script in bench/ (built packages are used: run `npm run build` first).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
let failed = 0;
for (const file of fs
  .readdirSync(dir)
  .filter((f) => f.endsWith(".mjs") && f !== "run-all.mjs")
  .sort()) {
  if (only && !file.includes(only)) continue;
  console.log(`\n=== ${file}`);
  const res = spawnSync(process.execPath, [path.join(dir, file)], { stdio: "inherit" });
  if (res.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
