/**
 * A failed batch's error goes to the server log cut to its start and end. It was cut before it was masked: a secret
 * across either cut left a piece the mask no longer matched, and the piece went to the log.
 */
import { describe, expect, it } from "vitest";
import { SecretScrubber } from "../../src/engine/secret-scrubber.js";
import { writeErrorText } from "../../src/engine/write-buffer.js";

const SECRET = "sk_live_51Habcdefghijklmnopqrstuv";

describe("the server log's text of a failed batch", () => {
  it("masks a secret across the cut at its start or its end before cutting", () => {
    const scrubber = new SecretScrubber();
    scrubber.add(SECRET);
    const mask = (text: string) => scrubber.scrub(text);
    // the secret across the 200th character, and again across the start of the last 800
    const message = `${"a".repeat(190)}${SECRET}${"b".repeat(3000)}${SECRET}${"c".repeat(790)}`;
    const logged = writeErrorText(new Error(message), mask);
    expect(logged.length).toBeLessThan(1100);
    for (let k = 6; k <= SECRET.length; k++) {
      for (const piece of [SECRET.slice(0, k), SECRET.slice(-k)]) expect(logged).not.toContain(piece);
    }
    expect(logged).toContain("********");
  });
});
