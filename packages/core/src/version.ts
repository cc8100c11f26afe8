import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The version of @sluice/core, read from its package.json (works from src/ and from the bundled dist/). */
function readVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = path.join(dir, "package.json");
    try {
      const pkg = JSON.parse(fs.readFileSync(candidate, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "@sluice/core" && pkg.version) return pkg.version;
    } catch {
      // keep walking up
    }
    dir = path.dirname(dir);
  }
  return "0.0.0";
}

export const SLUICE_VERSION: string = readVersion();
