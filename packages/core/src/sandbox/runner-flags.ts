import { createRequire } from "node:module";
import path from "node:path";
import { SluiceError } from "../errors.js";

const require = createRequire(import.meta.url);

/**
 * isolated-vm's release lines follow Node majors (5.x builds on Node 20, 6.x needs 22, 7.x needs 24), so the
 * package depends on all three under aliases, as optional dependencies: the ones that cannot build for the running
 * Node fail to install and are skipped.
 */
const ISOLATED_VM_BY_NODE_MAJOR: readonly (readonly [number, string])[] = [
  [24, "isolated-vm-node24"],
  [22, "isolated-vm-node22"],
  [20, "isolated-vm-node20"],
];

/** The entry file of the isolated-vm build for the running Node (its native addon sits in the same package). */
export function isolatedVmEntry(): string {
  const major = Number(process.versions.node.split(".")[0]);
  const line = ISOLATED_VM_BY_NODE_MAJOR.find(([min]) => major >= min);
  try {
    if (line) return require.resolve(line[1]);
  } catch {
    // reported below
  }
  throw new SluiceError(
    "internal",
    `no code sandbox is installed for Node ${process.versions.node} (isolated-vm failed to build; see npm install's output)`,
  );
}

/**
 * Node flags for a runner process: the permission model with nothing granted but reading the runner script and the
 * isolated-vm package (to load its addon), native addons allowed (isolated-vm is one), and no startup snapshot
 * (isolated-vm requires that on Node ≥ 20). Older Node spells the flag `--experimental-permission`; one
 * `--allow-fs-read` per path (a comma-separated list is no longer accepted since Node 20.20).
 */
export function runnerExecArgv(script: string): string[] {
  const readable = [script, path.dirname(isolatedVmEntry())];
  const permission = process.allowedNodeEnvironmentFlags.has("--permission")
    ? "--permission"
    : "--experimental-permission";
  const reads = readable.map((p) => `--allow-fs-read=${p}`);
  return [permission, ...reads, "--allow-addons", "--no-node-snapshot", "--no-warnings"];
}
