import { describe, expectTypeOf, it } from "vitest";
import type { Dashboard, Pipeline, PipelineCreate, SearchResult } from "@sluice/core/model";
import {
  SluiceClient,
  definePipeline,
  node,
  sinkDb,
  sourceDb,
  type ApplyResult,
  type NodeBuilder,
  type StreamEvent,
} from "../src/index.js";

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

  it("builds nodes of custom types with node(), typed like the helpers for a built-in type", () => {
    const geo = node("geocode", "geo", { column: "address", timeout: 5 });
    expectTypeOf(geo).toEqualTypeOf<NodeBuilder<"geocode">>();
    // @ts-expect-error a built-in type keeps its typed config: sink_db needs a table
    node("sink_db", "out", { conn_id: "pg" });
    // @ts-expect-error the settings stay typed on a custom type too
    node("geocode", "geo", { timeout: "soon" });
    expectTypeOf(
      definePipeline({ name: "x", nodes: [sourceDb("src", { conn_id: "pg", query: "select 1" }), geo] }),
    ).toEqualTypeOf<PipelineCreate>();
  });

  it("narrows streamed events by type", () => {
    const handle = (e: StreamEvent) => {
      if (e.type === "node.completed") expectTypeOf(e.row_count).toEqualTypeOf<number>();
      expectTypeOf(e.seq).toEqualTypeOf<number>();
    };
    expectTypeOf(handle).toBeFunction();
  });
});
