import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test-support/http.js";

/**
 * A JSON body is read as JSON whatever its Content-Type says, when that is JSON, text or nothing (curl's `-d` sends
 * a form type, fetch a text type for a string): before, such a body was thrown away and the request went on with
 * defaults — a run triggered without the params sent, an update that changed nothing but recorded a version. A body
 * of any other type (a form, XML) is refused with 400, and nothing is done.
 */
describe("a request body's Content-Type", () => {
  let t: TestServer;
  let pipelineId: string;
  beforeAll(async () => {
    t = await startTestServer("sqlite");
    const created = await t.fetch("/pipelines", { method: "POST", json: { name: "typed", params: { x: "default" } } });
    pipelineId = ((await created.json()) as { id: string }).id;
  });
  afterAll(async () => t?.close());

  const runParams = async (res: Response) => {
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    return ((await (await t.fetch(`/runs/${id}`)).json()) as { params: Record<string, string> }).params;
  };
  const versions = async () =>
    ((await (await t.fetch(`/pipelines/${pipelineId}/versions`)).json()) as unknown[]).length;
  const body = JSON.stringify({ params: { x: "sent" } });

  it("text/plain (fetch's type for a string body) is read as JSON", async () => {
    const res = await t.fetch(`/pipelines/${pipelineId}/run`, {
      method: "POST",
      headers: { "content-type": "text/plain;charset=UTF-8" },
      body,
    });
    expect(await runParams(res)).toEqual({ x: "sent" });
  });

  it("no Content-Type at all is read as JSON", async () => {
    // a byte body: fetch sends it with no Content-Type
    const res = await t.fetch(`/pipelines/${pipelineId}/run`, { method: "POST", body: new TextEncoder().encode(body) });
    expect(await runParams(res)).toEqual({ x: "sent" });
  });

  it("a form body is refused with 400 naming JSON, and no run is made", async () => {
    const before = ((await (await t.fetch(`/pipelines/${pipelineId}/runs`)).json()) as unknown[]).length;
    const res = await t.fetch(`/pipelines/${pipelineId}/run`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/application\/json/);
    expect(((await (await t.fetch(`/pipelines/${pipelineId}/runs`)).json()) as unknown[]).length).toBe(before);
  });

  it("an XML-typed update is refused with 400; the pipeline and its versions stay as they were", async () => {
    const before = await versions();
    const res = await t.fetch(`/pipelines/${pipelineId}`, {
      method: "PUT",
      headers: { "content-type": "application/xml" },
      body: JSON.stringify({ name: "renamed" }),
    });
    expect(res.status).toBe(400);
    expect(((await (await t.fetch(`/pipelines/${pipelineId}`)).json()) as { name: string }).name).toBe("typed");
    expect(await versions()).toBe(before);
  });

  it("text/plain that is not JSON is a malformed JSON body (400)", async () => {
    const res = await t.fetch(`/pipelines/${pipelineId}`, {
      method: "PUT",
      headers: { "content-type": "text/plain" },
      body: "name=renamed",
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/malformed JSON/);
  });

  it("a request with no body needs no Content-Type", async () => {
    const res = await t.fetch(`/pipelines/${pipelineId}/run`, { method: "POST" });
    expect(await runParams(res)).toEqual({ x: "default" });
  });
});
