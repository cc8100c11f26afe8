import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SluiceError } from "./errors.js";

/**
 * A script run in a worker thread or child process. In the source tree it sits next to the module that starts it
 * (`callerUrl`, that module's `import.meta.url`) as `sourceName`; in `dist`, where tsup bundles every module into
 * one file, it is emitted as `distPath` beside the bundle (the tsup entries in tsup.config.ts).
 */
export function bundledScript(callerUrl: string, sourceName: string, distPath: string, what: string): string {
  const here = path.dirname(fileURLToPath(callerUrl));
  const found = [path.join(here, sourceName), path.join(here, distPath)].find((c) => fs.existsSync(c));
  if (!found) throw new SluiceError("internal", `${what} is missing from the installation`);
  return found;
}
