import { afterEach, describe, expect, it } from "vitest";
import { sinkApiNode } from "../../../src/engine/nodes/sink-api.js";
import { sinkApiConfig } from "../../../src/engine/nodes/sink-api.js";
import { dataSetFromRows } from "../../../src/engine/dataset.js";
import { connectionsOf, nodeContext, startPeer, type PeerServer } from "../peer-server.js";

let peer: PeerServer | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i + 1, name: `r${i + 1}` }));

describe("sink_api", () => {
  it("POSTs rows as JSON arrays in batches of 100 by default and passes its input through", async () => {
    peer = await startPeer(() => ({ status: 201, json: { ok: true } }));
    const input = dataSetFromRows(rows(250));
    const { ctx } = nodeContext("sink_api");
    const result = await sinkApiNode.run(ctx, sinkApiConfig.parse({ url: `${peer.url}/ingest` }), [input]);
    expect(peer.received.map((r) => r.method)).toEqual(["POST", "POST", "POST"]);
    const batches = peer.received.map((r) => JSON.parse(r.body) as unknown[]);
    expect(batches.map((b) => b.length)).toEqual([100, 100, 50]);
    expect(batches.flat()).toEqual(input.rows);
    expect(peer.received[0]!.headers["content-type"]).toBe("application/json");
    expect(result.rowCount).toBe(250);
    expect(result.output).toBe(input);
  });

  it("honours batch_size, method, headers and connection auth", async () => {
    peer = await startPeer(() => ({ json: {} }));
    const secrets = connectionsOf([{ conn_id: "hook", host: peer.url, extra: { token: "tk" } }]);
    const { ctx } = nodeContext("sink_api", { secrets, params: { src: "crm" } });
    const config = sinkApiConfig.parse({
      conn_id: "hook",
      path: "/bulk",
      method: "PUT",
      batch_size: 2,
      headers: { "X-Source": "${param.src}" },
    });
    const result = await sinkApiNode.run(ctx, config, [dataSetFromRows(rows(3))]);
    expect(peer.received.map((r) => [r.method, r.url, r.headers.authorization, r.headers["x-source"]])).toEqual([
      ["PUT", "/bulk", "Bearer tk", "crm"],
      ["PUT", "/bulk", "Bearer tk", "crm"],
    ]);
    expect(result.rowCount).toBe(3);
  });

  it("fails on a non-2xx answer with the status", async () => {
    peer = await startPeer(() => ({ status: 500, text: "boom" }));
    const { ctx, logs } = nodeContext("sink_api");
    await expect(
      sinkApiNode.run(ctx, sinkApiConfig.parse({ url: peer.url }), [dataSetFromRows(rows(1))]),
    ).rejects.toThrow(/HTTP 500/);
    expect(logs.some((l) => l.level === "error" && l.message.includes("HTTP 500"))).toBe(true);
  });

  it("sends nothing for an empty input", async () => {
    peer = await startPeer();
    const { ctx } = nodeContext("sink_api");
    const result = await sinkApiNode.run(ctx, sinkApiConfig.parse({ url: peer.url }), [dataSetFromRows([])]);
    expect(peer.received).toHaveLength(0);
    expect(result.rowCount).toBe(0);
  });

  it("refuses a metadata address", async () => {
    const { ctx } = nodeContext("sink_api");
    await expect(
      sinkApiNode.run(ctx, sinkApiConfig.parse({ url: "http://[fd00:ec2::254]/" }), [dataSetFromRows(rows(1))]),
    ).rejects.toThrow(/cloud-metadata/);
  });
});
