import { describe, expect, it } from "vitest";
import { redactSecret } from "../../src/service/connection-service.js";

describe("redactSecret (connection test causes in the server log)", () => {
  it("masks a password wherever it appears, raw and URL-encoded", () => {
    expect(redactSecret("auth failed for s3cr3t!@x (s3cr3t!%40x)", "s3cr3t!@x")).toBe("auth failed for ******** (********)");
  });

  it("masks a very short password only as its own token, leaving words intact", () => {
    expect(redactSecret("Connection terminated unexpectedly; password p rejected", "p")).toBe(
      "Connection terminated unexpectedly; password ******** rejected",
    );
    expect(redactSecret("user=a pass=a.b", "a.b")).toBe("user=a pass=********");
  });
});
