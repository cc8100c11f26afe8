import { describe, expect, it } from "vitest";
import { EventLogCursor } from "../../src/event-log-cursor.js";

describe("EventLogCursor", () => {
  it("skips what it has seen and moves its floor over contiguous numbers", () => {
    const c = new EventLogCursor(10);
    expect(c.see(11)).toBe(true);
    expect(c.see(12)).toBe(true);
    expect(c.see(12)).toBe(false);
    expect(c.see(9)).toBe(false);
    c.advance(0);
    expect(c.floor).toBe(12);
  });

  it("waits at a gap (a transaction not yet committed), then reads the late number once", () => {
    const c = new EventLogCursor(0, 2000);
    c.see(1);
    c.see(3); // 2 was handed out first but commits later
    c.advance(1000);
    expect(c.floor).toBe(1);
    expect(c.see(3)).toBe(false); // read again from the floor: not delivered twice
    expect(c.see(2)).toBe(true); // the late one arrives
    c.advance(1500);
    expect(c.floor).toBe(3);
  });

  it("gives up on a gap after the settle time (a rolled-back number is never filled)", () => {
    const c = new EventLogCursor(0, 2000);
    c.see(2);
    c.advance(1000);
    expect(c.floor).toBe(0);
    c.advance(2999);
    expect(c.floor).toBe(0);
    c.advance(3000);
    expect(c.floor).toBe(2);
    expect(c.see(1)).toBe(false);
  });
});
