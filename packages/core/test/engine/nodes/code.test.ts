import { describe, expect, it } from "vitest";
import { codeNode } from "../../../src/engine/nodes/code.js";
import { codeConfig } from "../../../src/engine/nodes/code.js";
import { dataSetFromRows } from "../../../src/engine/dataset.js";
import { nodeContext } from "../peer-server.js";

const input = dataSetFromRows([{ n: 1 }, { n: 2 }, { n: 3 }]);

const runCode = (
  code: string,
  options: Parameters<typeof nodeContext>[1] = {},
  extra: Record<string, unknown> = {},
) => {
  const { ctx, logs } = nodeContext("code", { inputIds: ["src"], ...options });
  return { logs, result: codeNode.run(ctx, codeConfig.parse({ code, ...extra }), [input]) };
};

describe("code", () => {
  it("returns mapped rows and turns console output into run logs", async () => {
    const { result, logs } = runCode(
      'console.log("got", rows.length, "rows"); console.warn("careful"); return rows.map(r => ({ ...r, double: r.n * 2, p: params.k }));',
      {
        params: { k: "v" },
      },
    );
    const { output } = await result;
    expect(output).toEqual({
      columns: ["n", "double", "p"],
      rows: [
        { n: 1, double: 2, p: "v" },
        { n: 2, double: 4, p: "v" },
        { n: 3, double: 6, p: "v" },
      ],
    });
    expect(logs).toContainEqual({ level: "info", message: "got 3 rows" });
    expect(logs).toContainEqual({ level: "warning", message: "careful" });
  });

  it("accepts {columns, rows}, async code and sees every input", async () => {
    const { result } = runCode(
      "await new Promise(r => setTimeout(r, 5)); return { columns: ['id', 'total'], rows: [{ total: rows.reduce((s, r) => s + r.n, 0), id: inputs[0].id }] };",
    );
    expect((await result).output).toEqual({ columns: ["id", "total"], rows: [{ total: 6, id: "src" }] });
  });

  it("fails cleanly on a throw, a syntax error and a bad return value", async () => {
    await expect(runCode('throw new Error("nope")').result).rejects.toThrow(/code threw Error: nope/);
    await expect(runCode("return [").result).rejects.toThrow(/syntax error in code/);
    await expect(runCode("return 42").result).rejects.toThrow(/array of row objects/);
    await expect(runCode("return [() => 1]").result).rejects.toThrow(/cannot be passed on|array of row objects/);
  });

  it("stops an infinite loop at the node timeout and keeps working", async () => {
    await expect(runCode("for (;;) {}", { timeoutMs: 500 }).result).rejects.toThrow(/timed out/);
    expect((await runCode("return rows").result).output.rows).toHaveLength(3);
  });

  it("fails cleanly when the code runs out of memory and keeps working", async () => {
    const hog = "const keep = []; for (;;) keep.push(new Array(1e6).fill(Math.random()));";
    await expect(runCode(hog, {}, { memory_mb: 32 }).result).rejects.toThrow(/out of memory|code failed|exited/);
    expect((await runCode("return rows").result).output.rows).toHaveLength(3);
  });

  it("stops when the run is cancelled", async () => {
    const controller = new AbortController();
    const { result } = runCode("for (;;) {}", { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(result).rejects.toThrow(/cancelled/);
  });
});
