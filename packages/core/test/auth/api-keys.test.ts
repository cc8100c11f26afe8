import { describe, expect, it } from "vitest";
import { API_KEY_PATTERN, generateApiKey, matchesApiKey } from "../../src/auth/api-keys.js";

describe("API keys", () => {
  const key = generateApiKey();
  const other = generateApiKey();

  it("are svc_ and 48 hex characters, a new one each time", () => {
    expect(key).toMatch(API_KEY_PATTERN);
    expect(other).not.toBe(key);
  });

  it("match only a configured key, exactly", () => {
    expect(matchesApiKey(key, [other, key])).toBe(true);
    expect(matchesApiKey(key, [other])).toBe(false);
    expect(matchesApiKey(`${key} `, [key])).toBe(false);
    expect(matchesApiKey(key.toUpperCase(), [key])).toBe(false);
    expect(matchesApiKey(key.slice(0, -1), [key])).toBe(false);
  });

  it("match nothing when none is configured, not even an empty value", () => {
    for (const candidate of [key, "", "svc_", API_KEY_PATTERN.source]) expect(matchesApiKey(candidate, [])).toBe(false);
  });
});
