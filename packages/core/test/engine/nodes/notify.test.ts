import { afterEach, describe, expect, it } from "vitest";
import { notifyNode } from "../../../src/engine/nodes/notify.js";
import { notifyConfig } from "../../../src/engine/nodes/notify.js";
import { dataSetFromRows } from "../../../src/engine/dataset.js";
import { nodeContext, startPeer, type PeerServer } from "../peer-server.js";

let peer: PeerServer | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

const input = dataSetFromRows([{ a: 1 }, { a: 2 }, { a: 3 }]);

describe("notify", () => {
  it("posts a webhook JSON message with run facts and passes its input through", async () => {
    peer = await startPeer(() => ({ json: {} }));
    const { ctx } = nodeContext("notify", { params: { env: "prod" } });
    const config = notifyConfig.parse({
      url: peer.url,
      message: "[${param.env}] {{pipeline}} run ${run.id}: {{row_count}} rows ({{run_id}})",
    });
    const result = await notifyNode.run(ctx, config, [input]);
    expect(JSON.parse(peer.received[0]!.body)).toEqual({
      text: "[prod] Daily orders run run-1: 3 rows (run-1)",
      pipeline_id: "pipe-1",
      pipeline: "Daily orders",
      run_id: "run-1",
      node_id: "notify_1",
      row_count: 3,
    });
    expect(result.output).toBe(input);
  });

  it("sends Slack-compatible {text} with format slack and a default message", async () => {
    peer = await startPeer(() => ({ text: "ok" }));
    const { ctx } = nodeContext("notify");
    await notifyNode.run(ctx, notifyConfig.parse({ url: peer.url, format: "slack" }), [input]);
    expect(JSON.parse(peer.received[0]!.body)).toEqual({ text: "Pipeline Daily orders run run-1: 3 rows" });
  });

  it("fails when the receiver answers non-2xx and refuses link-local targets", async () => {
    peer = await startPeer(() => ({ status: 404 }));
    const { ctx } = nodeContext("notify");
    await expect(notifyNode.run(ctx, notifyConfig.parse({ url: peer.url }), [input])).rejects.toThrow(/HTTP 404/);
    await expect(notifyNode.run(ctx, notifyConfig.parse({ url: "http://169.254.1.1/hook" }), [input])).rejects.toThrow(
      /cloud-metadata/,
    );
  });

  it("validation requires url or conn_id", () => {
    expect(notifyConfig.safeParse({ message: "hi" }).success).toBe(false);
    expect(notifyConfig.safeParse({ url: "http://127.0.0.1/x", format: "teams" }).success).toBe(false);
  });
});
