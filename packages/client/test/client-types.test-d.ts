import { describe, expectTypeOf, it } from "vitest";
import type { Dashboard, Pipeline, PipelineCreate, SearchResult } from "@sluice/core/model";
import { SluiceClient, definePipeline, sinkDb, sourceDb, type ApplyResult, type StreamEvent } from "../src/index.js";

const client = new SluiceClient({ baseUrl: "http://127.0.0.1:8080" });

describe("client types", () => {
  it("types requests and responses from @sluice/core/model", () => {
    expectTypeOf(client.pipelines.get).returns.resolves.toEqualTypeOf<Pipeline>();
    expectTypeOf(client.pipelines.create).parameter(0).toEqualTypeOf<PipelineCreate>();
    expectTypeOf(client.insights.dashboard).returns.resolves.toEqualTypeOf<Dashboard>();
    expectTypeOf(client.insights.search).returns.resolves.toEqualTypeOf<SearchResult[]>();
    expectTypeOf(client.pipelines.apply).returns.resolves.toEqualTypeOf<ApplyResult>();
  });

  it("types node configs per node type in the builder", () => {
    const src = sourceDb("src", { conn_id: "pg", query: "select 1" });
    // @ts-expect-error sink_db needs a table
    sinkDb("out", { conn_id: "pg" });
    expectTypeOf(definePipeline({ name: "x", nodes: [src] })).toEqualTypeOf<PipelineCreate>();
  });

  it("narrows streamed events by type", () => {
    const handle = (e: StreamEvent) => {
      if (e.type === "node.completed") expectTypeOf(e.row_count).toEqualTypeOf<number>();
      expectTypeOf(e.seq).toEqualTypeOf<number>();
    };
    expectTypeOf(handle).toBeFunction();
  });
});
