import { describe, expect, it } from "vitest";
import { storeOf, type Sluice } from "../../src/service/create-sluice.js";
import type { PipelineStore } from "../../src/store/ports.js";
import { startTestSluice } from "../engine/test-sluice.js";

/*
 * SQLite stores a row's columns in order, and a pipeline's `updated_at` and a version's `created_at` come after its
 * body or snapshot: a read of them went through the row's overflow pages. The scheduler leader reads the change
 * marker every second, so an idle server holding 100 versions of a 9.5 MB pipeline was held for 0.3 s every second,
 * and listing the versions took as long (found by a helper's sweep). What those reads take must not grow with the size
 * of the pipelines.
 */
const VERSIONS = 20;

/** An instance holding one pipeline saved VERSIONS times, its `code` node padded with `padding` characters. */
async function savedTimes(padding: number): Promise<{ sluice: Sluice; pipelines: PipelineStore; id: string }> {
  const sluice = await startTestSluice("sqlite");
  const { id } = await sluice.pipelines.create({
    name: "large",
    nodes: [{ id: "code", type: "code", config: { code: `// ${"x".repeat(padding)}\nreturn rows;` } }],
    edges: [],
  });
  for (let v = 1; v < VERSIONS; v++) await sluice.pipelines.update(id, { description: `save ${v}` });
  return { sluice, pipelines: storeOf(sluice).pipelines, id };
}

/** The least time `read` took of 5 calls. */
async function fastest(read: () => Promise<unknown>): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const began = performance.now();
    await read();
    best = Math.min(best, performance.now() - began);
  }
  return best;
}

describe("SQLite reads of pipelines' small columns", () => {
  it("the change marker and the versions listing take about as long for 2 MB pipelines as for small ones", async () => {
    const small = await savedTimes(10);
    const large = await savedTimes(2_000_000);
    expect(await large.pipelines.listVersions(large.id)).toHaveLength(VERSIONS);
    expect(await fastest(() => large.pipelines.changeMarker())).toBeLessThan(
      10 * (await fastest(() => small.pipelines.changeMarker())) + 1,
    );
    expect(await fastest(() => large.pipelines.listVersions(large.id))).toBeLessThan(
      10 * (await fastest(() => small.pipelines.listVersions(small.id))) + 1,
    );
  });
});
