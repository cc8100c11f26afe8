import { describe, expect, it } from "vitest";
import { resolveOptions } from "../../src/service/options.js";

describe("heartbeat / stale / instance id options", () => {
  it("default to 5 s heartbeat, 20 s stale and no instance id", () => {
    const { options } = resolveOptions({ database: ":memory:" });
    expect(options).toMatchObject({ heartbeatMs: 5000, staleMs: 20_000, instanceId: undefined });
  });

  it("refuse a stale limit that does not exceed twice the heartbeat", () => {
    expect(() => resolveOptions({ database: ":memory:", heartbeatMs: 1000, staleMs: 2000 })).toThrow(
      /staleMs must exceed twice heartbeatMs/,
    );
    expect(resolveOptions({ database: ":memory:", heartbeatMs: 500, staleMs: 2000 }).options.staleMs).toBe(2000);
  });

  it("refuse an instance id that would break the owner id (host:pid:random)", () => {
    expect(() => resolveOptions({ database: ":memory:", instanceId: "a:b" })).toThrow(/instance id/);
    expect(resolveOptions({ database: ":memory:", instanceId: "node-1.eu" }).options.instanceId).toBe("node-1.eu");
  });
});
