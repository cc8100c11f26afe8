import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKey } from "../../core/src/index.js";
import { SluiceApiError, SluiceClient } from "../src/index.js";
import { startTestServer, type TestServer } from "../../../test-support/http.js";

const PASSWORD = "correct horse battery";

describe("client auth methods", () => {
  let t: TestServer;
  const apiKey = generateApiKey();

  beforeAll(async () => {
    t = await startTestServer("sqlite", { apiKeys: [apiKey] });
  });
  afterAll(async () => t?.close());

  it("sets up the first user, logs in, and manages users", async () => {
    const anonymous = new SluiceClient({ baseUrl: t.baseUrl });
    expect(await anonymous.auth.setup()).toEqual({ needs_setup: true });
    // a server with an API key is never open: the first user is created with the key
    await expect(anonymous.auth.createUser({ username: "eve", password: PASSWORD })).rejects.toMatchObject({
      status: 401,
    });
    const withKey = new SluiceClient({ baseUrl: t.baseUrl, apiKey });
    expect(await withKey.auth.createUser({ username: "ada", password: PASSWORD, role: "viewer" })).toMatchObject({
      role: "admin",
    });
    expect(await anonymous.auth.setup()).toEqual({ needs_setup: false });
    await expect(anonymous.pipelines.list()).rejects.toMatchObject({ status: 401 });

    const login = await anonymous.auth.login("ada", PASSWORD);
    expect(login.user).toMatchObject({ username: "ada", role: "admin" });
    expect(await anonymous.auth.me()).toEqual(login.user);
    const bob = await anonymous.auth.createUser({ username: "bob", password: PASSWORD, role: "viewer" });
    expect((await anonymous.auth.users()).map((u) => u.username)).toEqual(["ada", "bob"]);

    const bobClient = new SluiceClient({ baseUrl: t.baseUrl });
    await bobClient.auth.login("bob", PASSWORD);
    await expect(bobClient.auth.users()).rejects.toBeInstanceOf(SluiceApiError);
    await bobClient.auth.changePassword({ current_password: PASSWORD, new_password: "bob's new password" });
    expect(await bobClient.auth.me()).toEqual(bob);

    await anonymous.auth.adminResetPassword({ user_id: bob.id, new_password: "reset by ada!" });
    await expect(bobClient.auth.me()).rejects.toMatchObject({ status: 401 });
    await bobClient.auth.login("bob", "reset by ada!");
    await bobClient.auth.logout();
    await expect(bobClient.auth.me()).rejects.toMatchObject({ status: 401 });
  });

  it("authenticates with an API key (X-API-Key) or a key given as token", async () => {
    const viaHeader = new SluiceClient({ baseUrl: t.baseUrl, apiKey });
    expect(await viaHeader.auth.me()).toEqual({ id: "api-key", username: "api-key", role: "admin" });
    const viaBearer = new SluiceClient({ baseUrl: t.baseUrl, token: apiKey });
    expect((await viaBearer.auth.users()).length).toBeGreaterThan(0);
  });

  it("a locked account surfaces as a 429 error", async () => {
    const client = new SluiceClient({ baseUrl: t.baseUrl });
    for (let i = 0; i < 5; i++)
      await expect(client.auth.login("ada", "wrong password")).rejects.toMatchObject({ status: 401 });
    await expect(client.auth.login("ada", PASSWORD)).rejects.toMatchObject({ status: 429 });
  });
});
