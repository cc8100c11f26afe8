import { ERROR_CODES, OPERATION_IO, OPERATIONS, pathParamNames, SLUICE_VERSION, type OperationId } from "@sluice/core";
import { z } from "zod";

const ERROR_STATUS: Readonly<Record<number, string>> = {
  400: "invalid input",
  401: "missing or invalid credentials",
  403: "not permitted",
  404: "not found",
};

/** A zod schema as JSON Schema: request bodies in full; response types (not validated) by name. */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): unknown {
  try {
    return z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" });
  } catch {
    return {};
  }
}

function queryParameters(schema: z.ZodType | undefined): Record<string, unknown>[] {
  if (!schema) return [];
  const json = jsonSchema(schema, "input") as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: "query",
    required: json.required?.includes(name) ?? false,
    schema: property,
  }));
}

/**
 * OpenAPI 3.1 generated from the operation table: one operation per entry (operationId = the table's id), with its
 * summary, path and query parameters, request body schema (the zod schema the service validates with), success
 * status and the permission it needs (`x-sluice-access`).
 */
export function buildOpenApi(prefix: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const id of Object.keys(OPERATIONS) as OperationId[]) {
    const spec = OPERATIONS[id];
    const io: { query?: z.ZodType; body?: z.ZodType; response: z.ZodType } = OPERATION_IO[id];
    const openPath = "root" in spec ? spec.path : `${prefix}${spec.path}`;
    const method = spec.method.toLowerCase();
    const success =
      spec.status === 204 || "websocket" in spec
        ? { description: spec.returns }
        : { description: spec.returns, content: { "application/json": { schema: jsonSchema(io.response, "output") } } };
    const responses: Record<string, unknown> = { [String(spec.status)]: success };
    for (const [status, description] of Object.entries(ERROR_STATUS)) {
      responses[status] = {
        description,
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      };
    }
    const operation: Record<string, unknown> = {
      operationId: id,
      summary: spec.summary,
      tags: [spec.tag],
      parameters: [
        ...pathParamNames(spec.path).map((name) => ({ name, in: "path", required: true, schema: { type: "string" } })),
        ...queryParameters(io.query),
      ],
      responses,
      "x-sluice-access": spec.access,
      ...(spec.access === "public" || spec.access === "webhook" ? { security: [] } : {}),
    };
    if (io.body)
      operation.requestBody = {
        required: !io.body.safeParse(undefined).success,
        content: { "application/json": { schema: jsonSchema(io.body, "input") } },
      };
    paths[openPath.replace(/\{([A-Za-z0-9_]+)\}/g, "{$1}")] = { ...paths[openPath], [method]: operation };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Sluice API",
      version: SLUICE_VERSION,
      description: "Data-pipeline orchestration. Errors are JSON {error, code}.",
    },
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
          properties: {
            error: { type: "string" },
            code: { type: "string", enum: [...ERROR_CODES] },
            errors: { type: "array", items: { type: "string" } },
            details: {},
          },
        },
      },
    },
    security: [{ bearer: [] }, { apiKey: [] }, { cookie: [] }],
    paths,
  };
}
