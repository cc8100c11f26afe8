import { ERROR_CODES, SLUICE_VERSION } from "@sluice/core";
import { z } from "zod";
import { ROUTE_DOCS } from "./route-docs.js";

export interface RouteRef {
  method: string;
  /** Router pattern without the prefix, `:param` syntax. */
  path: string;
  /** `/api` or "" for root routes. */
  prefix: string;
}

const STATUS_TEXT: Record<number, string> = { 400: "invalid input", 401: "missing or invalid credentials", 403: "not permitted", 404: "not found" };

const keyOf = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
const docKey = (method: string, path: string) => keyOf(method, path).replace(/:[A-Za-z0-9_]+/g, ":param");
const DOCS_BY_KEY = new Map(Object.entries(ROUTE_DOCS).map(([k, v]) => [k.replace(/:[A-Za-z0-9_]+/g, ":param"), v]));

/** The route's doc entry, if any (parameter names do not matter). */
export function routeDoc(method: string, path: string) {
  return DOCS_BY_KEY.get(docKey(method, path));
}

function jsonSchema(schema: z.ZodType): unknown {
  try {
    return z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
  } catch {
    return { type: "object" };
  }
}

/**
 * OpenAPI 3.1 for exactly the routes the app registers (so the document can never list a route that does not
 * exist or miss one that does); summaries and request bodies come from ROUTE_DOCS and core's zod schemas.
 */
export function buildOpenApi(routes: readonly RouteRef[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const method = route.method.toLowerCase();
    if (method === "head" || method === "options") continue;
    const openPath = `${route.prefix}${route.path}`.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    const doc = routeDoc(route.method, route.path);
    const params = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
    const query = Object.entries(doc?.query ?? {}).map(([name, description]) => ({ name, in: "query", required: name === "q", description, schema: { type: "string" } }));
    const [status, description] = doc?.success ?? [200, "success"];
    const responses: Record<string, unknown> = {
      [String(status)]: status === 204 ? { description } : { description, content: { "application/json": { schema: {} } } },
    };
    for (const code of [400, 401, 403, 404]) {
      responses[String(code)] = { description: STATUS_TEXT[code], content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
    }
    const operation: Record<string, unknown> = {
      operationId: `${method}${openPath.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ""))}`,
      summary: doc?.summary ?? `${route.method} ${route.path}`,
      tags: [doc?.tag ?? "other"],
      parameters: [...params, ...query],
      responses,
    };
    if (doc?.body) operation.requestBody = { required: true, content: { "application/json": { schema: jsonSchema(doc.body) } } };
    paths[openPath] = { ...paths[openPath], [method]: operation };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Sluice API", version: SLUICE_VERSION, description: "Data-pipeline orchestration. Errors are JSON {error}." },
    servers: [{ url: "/" }],
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "JWT from /api/auth/login, or an API key" },
        apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
        cookie: { type: "apiKey", in: "cookie", name: "svc_session" },
      },
      schemas: {
        Error: {
          type: "object",
          required: ["error", "code"],
          properties: { error: { type: "string" }, code: { type: "string", enum: [...ERROR_CODES] }, errors: { type: "array", items: { type: "string" } }, details: {} },
        },
      },
    },
    security: [{ bearer: [] }, { apiKey: [] }, { cookie: [] }],
    paths,
  };
}
