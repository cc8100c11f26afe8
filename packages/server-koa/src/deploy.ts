import fs from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { SluiceClient, type ApplyResult } from "@sluice/client";
import type { PipelineCreate } from "@sluice/core/model";

const DEFINITION_FILES = /\.(json|js|mjs)$/;

/** Pipeline definitions in a file: a pipeline object, an array of them, or an export document (`.json`); for
 * `.js`/`.mjs` the default export (object, array, or a function returning either) or a `pipelines`/`pipeline` export.
 * */
async function loadFile(file: string): Promise<PipelineCreate[]> {
  let value: unknown;
  if (file.endsWith(".json")) {
    value = JSON.parse(await fs.readFile(file, "utf8"));
  } else {
    const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    value = mod.default ?? mod.pipelines ?? mod.pipeline;
    if (typeof value === "function") value = await (value as () => unknown)();
  }
  const list = Array.isArray(value) ? value : [value];
  return list.map((item, i) => {
    const def = (
      item && typeof item === "object" && "sluice_export" in item ? (item as { pipeline: unknown }).pipeline : item
    ) as PipelineCreate;
    if (!def || typeof def !== "object" || typeof def.name !== "string") {
      throw new Error(`${file}${list.length > 1 ? ` [${i}]` : ""}: not a pipeline definition (an object with a name)`);
    }
    return def;
  });
}

async function collect(target: string): Promise<string[]> {
  const stat = await fs.stat(target).catch(() => null);
  if (!stat) throw new Error(`${target}: no such file or directory`);
  if (stat.isFile()) return [path.resolve(target)];
  const entries = (await fs.readdir(target)).filter((f) => DEFINITION_FILES.test(f)).sort();
  return entries.map((f) => path.resolve(target, f));
}

const describe = (r: ApplyResult) =>
  r.action === "updated"
    ? `updated   ${r.pipeline.name} (${r.pipeline.id}): ${r.changes.join(", ")}`
    : `${r.action.padEnd(9)} ${r.pipeline.name} (${r.pipeline.id})`;

/** `sluice deploy <file-or-dir>…`: create or update pipelines by name through the API, printing what changed. */
export async function deploy(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      url: { type: "string" },
      "api-key": { type: "string" },
      token: { type: "string" },
    },
  });
  if (positionals.length === 0) throw new Error("deploy needs at least one file or directory (try 'sluice --help')");
  const env = process.env;
  const client = new SluiceClient({
    baseUrl: values.url ?? env.SLUICE_URL ?? "http://localhost:8080",
    apiKey: values["api-key"] ?? env.SLUICE_API_KEY,
    token: values.token ?? env.SLUICE_TOKEN,
  });
  const files = (await Promise.all(positionals.map(collect))).flat();
  if (files.length === 0) throw new Error("no .json, .js or .mjs pipeline files found");
  let count = 0;
  for (const file of files) {
    for (const def of await loadFile(file)) {
      const result = await client.pipelines.apply(def).catch((e: unknown) => {
        throw new Error(`${path.basename(file)}: pipeline "${def.name}": ${(e as Error).message}`);
      });
      process.stdout.write(`${describe(result)}\n`);
      count += 1;
    }
  }
  process.stdout.write(`${count} pipeline${count === 1 ? "" : "s"} applied\n`);
}
