import { sharedCodeRunnerPool } from "../../sandbox/code-runner-pool.js";
import { DEFAULT_MEMORY_MB, MAX_LOG_LINES } from "../../sandbox/runner-protocol.js";
import { defineNodeType } from "../node-type.js";
import { z } from "zod";
import { loose, nonEmpty, outputBounds, outputLimits } from "./config-parts.js";

export const codeConfig = loose({
  code: nonEmpty("code"),
  memory_mb: z.number().int().min(8).max(4096).optional(),
  ...outputBounds,
});

/**
 * `code`: user JavaScript, the body of an async function, run in a V8 isolate inside a separate runner process
 * (docs/nodes.md) with the node timeout and a memory limit (`memory_mb`, default 256). It receives `rows`,
 * `columns`, `inputs`, `params` and returns rows or `{ columns, rows }`; `console.*` lines become run logs.
 */
export const codeNode = defineNodeType({
  type: "code",
  configSchema: codeConfig,
  async run(ctx, config, inputs) {
    const output = await sharedCodeRunnerPool().run(
      {
        code: config.code,
        params: { ...ctx.params },
        inputs: inputs.map((d, i) => ({ id: ctx.inputIds[i] ?? null, columns: d.columns })),
        timeoutMs: ctx.timeoutMs,
        memoryMb: config.memory_mb ?? DEFAULT_MEMORY_MB,
        maxLogLines: MAX_LOG_LINES,
        maxOutputRows: outputLimits(config).rows,
        maxOutputChars: outputLimits(config).chars,
      },
      inputs,
      { signal: ctx.signal, log: (level, message) => ctx.log(level, message) },
    );
    return { output, summary: `code returned ${output.rows.length} rows` };
  },
});
