import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createSluice, dataSetFromRows, defineNodeType, silentLogger } from "../../core/src/index.js";
import { definePipeline, node, sourceApi } from "../../client/src/index.js";
import { startTestServer, TEST_JWT_SECRET, type TestServer } from "../../../test-support/http.js";

/** A custom source: `count` rows numbered from `from`. */
const countRows = defineNodeType({
  type: "count_rows",
  configSchema: z.looseObject({ count: z.number().int().min(1), from: z.number().int().optional() }),
  async run(ctx, config) {
    ctx.log("info", `counting ${config.count} rows`);
    return { output: dataSetFromRows(Array.from({ length: config.count }, (_, i) => ({ n: (config.from ?? 1) + i }))) };
  },
});

/** A custom transform. */
const square = defineNodeType({
  type: "square",
  configSchema: z.looseObject({ column: z.string().min(1) }),
  async run(_ctx, config, inputs) {
    const rows = (inputs[0]?.rows ?? []).map((r) => ({
      ...r,
      [`${config.column}_squared`]: Number(r[config.column]) ** 2,
    }));
    return { output: dataSetFromRows(rows) };
  },
});

/** A custom sink with effects and references: recorded here when it runs, suppressed by a dry run. */
const delivered: unknown[][] = [];
const deliver = defineNodeType({
  type: "deliver",
  configSchema: z.looseObject({ warehouse: z.string().min(1) }),
  effects: true,
  references: (c) => ({ tablesWritten: [{ conn_id: String(c.warehouse), table: "deliveries" }] }),
  async run(_ctx, _config, inputs) {
    delivered.push(inputs[0]?.rows ?? []);
    return { output: inputs[0] ?? dataSetFromRows([]) };
  },
});

describe("custom node types added with createSluice({ nodeTypes })", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("sqlite", { nodeTypes: { count_rows: countRows, square, deliver } });
  });
  afterAll(async () => t?.close());

  const pipelineOfCustomTypes = () => {
    const numbers = node("count_rows", "numbers", { count: 3 });
    const squared = node("square", "squared", { column: "n" });
    const out = node("deliver", "out", { warehouse: "wh" });
    numbers.to(squared).to(out);
    return definePipeline({ name: `custom ${Math.random()}`, nodes: [numbers, squared, out] });
  };

  it("are accepted by create and validate, run over the HTTP API, and a dry run suppresses the one with effects", async () => {
    const res = await t.fetch("/pipelines", { method: "POST", json: pipelineOfCustomTypes() });
    expect(res.status).toBe(201);
    const pipeline = (await res.json()) as { id: string };

    // a type with effects may end a branch: no "no downstream connections" warning for `out`
    expect(await t.client.pipelines.validate(pipeline.id)).toEqual({ valid: true, errors: [], warnings: [] });
    const nodes = await t.client.pipelines.validateNodes(pipeline.id, {});
    expect(nodes.valid).toBe(true);
    expect(nodes.nodes.map((n) => [n.node_id, n.type, n.valid])).toEqual([
      ["numbers", "count_rows", true],
      ["squared", "square", true],
      ["out", "deliver", true],
    ]);

    delivered.length = 0;
    const dry = await t.client.runs.dryRun(pipeline.id);
    expect(dry.squared).toMatchObject({
      status: "success",
      rows: [
        { n: 1, n_squared: 1 },
        { n: 2, n_squared: 4 },
        { n: 3, n_squared: 9 },
      ],
    });
    expect(dry.out).toMatchObject({
      status: "skipped",
      rows: [
        { n: 1, n_squared: 1 },
        { n: 2, n_squared: 4 },
        { n: 3, n_squared: 9 },
      ],
    });
    expect(delivered).toEqual([]);

    const run = await t.client.runs.waitUntilTerminal((await t.client.runs.trigger(pipeline.id)).id);
    expect(run.status).toBe("success");
    expect(run.node_runs.map((n) => [n.node_id, n.status, n.row_count])).toEqual(
      expect.arrayContaining([
        ["numbers", "success", 3],
        ["squared", "success", 3],
        ["out", "success", 3],
      ]),
    );
    expect(delivered).toEqual([
      [
        { n: 1, n_squared: 1 },
        { n: 2, n_squared: 4 },
        { n: 3, n_squared: 9 },
      ],
    ]);
    expect((await t.client.runs.preview(run.id, "squared")).rows).toEqual([
      { n: 1, n_squared: 1 },
      { n: 2, n_squared: 4 },
      { n: 3, n_squared: 9 },
    ]);
  });

  it("config errors of a custom type come from its schema: validate names the key, a trigger is 422", async () => {
    const created = await t.client.pipelines.create(
      definePipeline({ name: `bad custom ${Math.random()}`, nodes: [node("count_rows", "numbers", { count: 0 })] }),
    );
    const result = await t.client.pipelines.validate(created.id);
    expect(result.valid).toBe(false);
    expect(result.errors.join()).toMatch(/node 'numbers' \(count_rows\): config\.count/);
    const trigger = await t.fetch(`/pipelines/${created.id}/run`, { method: "POST", json: {} });
    expect(trigger.status).toBe(422);
  });

  it("an unknown type is still a 400 on create, naming the type", async () => {
    const body = { name: "unknown type", nodes: [{ id: "x", type: "no_such_type", config: {} }], edges: [] };
    const res = await t.fetch("/pipelines", { method: "POST", json: body });
    expect(res.status).toBe(400);
    const error = (await res.json()) as { errors: string[] };
    expect(error.errors.join()).toMatch(
      /node 'x': unknown node type 'no_such_type' \(expected one of .*count_rows, square, deliver\)/,
    );
  });

  it("lineage and impact read what a custom type declares it references", async () => {
    const writer = await t.client.pipelines.create(pipelineOfCustomTypes());
    const reader = await t.client.pipelines.create(
      definePipeline({
        name: `reads deliveries ${Math.random()}`,
        nodes: [
          node("source_db", "read", { conn_id: "wh", query: "select * from deliveries" }),
          sourceApi("api", { url: "https://example.test/x" }),
        ],
      }),
    );
    const lineage = await t.client.insights.lineage();
    expect(lineage.edges).toEqual(
      expect.arrayContaining([{ from: `pipeline:${writer.id}`, to: "table:wh/deliveries", pipeline_id: writer.id }]),
    );
    const impact = await t.client.insights.impact(writer.id);
    expect(impact.downstream).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ pipeline_id: reader.id, via: "table", detail: "wh.deliveries" }),
      ]),
    );
  });
});

describe("node types of another instance", () => {
  it("a type this instance did not register is refused, and a definition must sit under its own name", async () => {
    const sluice = await createSluice({ database: ":memory:", logger: silentLogger, jwtSecret: TEST_JWT_SECRET });
    try {
      await expect(
        sluice.pipelines.create({
          name: "p",
          nodes: [{ id: "x", type: "count_rows", config: { count: 1 } }],
          edges: [],
        }),
      ).rejects.toMatchObject({ code: "invalid" });
    } finally {
      await sluice.close();
    }
    await expect(
      createSluice({
        database: ":memory:",
        logger: silentLogger,
        jwtSecret: TEST_JWT_SECRET,
        nodeTypes: { counter: countRows },
      }),
    ).rejects.toThrow(/nodeTypes\.counter/);
  });
});
