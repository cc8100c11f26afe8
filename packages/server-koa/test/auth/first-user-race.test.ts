import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDialects } from "../../../../test-support/databases.js";
import {
  startSecondInstance,
  startTestServer,
  type SecondInstance,
  type TestServer,
} from "../../../../test-support/http.js";
import { PASSWORD, login } from "./users.js";

const dialects = await testDialects();

/*
 * The attack: someone races the operator's setup, sending many anonymous "create the first user" requests at once,
 * to two instances on one database. At most one may become a user (the first, an admin); every other request is
 * refused, and none of those usernames can log in afterwards.
 */
describe.each(dialects)("%s: racing the first user", (dialect) => {
  let t: TestServer;
  let other: SecondInstance;
  beforeAll(async () => {
    t = await startTestServer(dialect);
    other = await startSecondInstance(t);
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });

  it(`${dialect}: of 8 first users sent at once to two instances, at most one is created`, async () => {
    const bases = [t.baseUrl, other.baseUrl];
    const names = Array.from({ length: 8 }, (_, i) => `racer${i}`);
    const statuses = await Promise.all(
      names.map(async (username, i) => {
        const res = await fetch(`${bases[i % 2]}/api/auth/users`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ username, password: PASSWORD }),
        });
        return res.status;
      }),
    );
    const created = names.filter((_, i) => statuses[i] === 201);
    expect(created.length, statuses.join(",")).toBeLessThanOrEqual(1);
    // 401 once the first exists; 409 for one that found another racer beside it on the other instance
    expect(statuses.every((s) => s === 201 || s === 401 || s === 409)).toBe(true);
    for (const username of names)
      expect([username, (await login(t, username)).status]).toEqual([username, created.includes(username) ? 200 : 401]);
    expect(await (await t.fetch("/auth/setup")).json()).toEqual({ needs_setup: created.length === 0 });
  });
});
