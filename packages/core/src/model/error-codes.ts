/**
 * The stable error codes every error body carries (`{ "error": "…", "code": "…" }`) and their HTTP statuses.
 * Dependency-free so the client shares them.
 */
/** Every failure the service reports to a caller carries one of these codes. */
export const ERROR_CODES = [
  "bad_request",
  "invalid",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "payload_too_large",
  "unprocessable",
  "rate_limited",
  "method_not_allowed",
  "internal",
  "unavailable",
] as const;
export type SluiceErrorCode = (typeof ERROR_CODES)[number];

/** The one table from error code to HTTP status (exhaustive by type). */
export const HTTP_STATUS_BY_CODE: Readonly<Record<SluiceErrorCode, number>> = Object.freeze({
  bad_request: 400,
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unprocessable: 422,
  rate_limited: 429,
  method_not_allowed: 405,
  internal: 500,
  unavailable: 503,
});

/** The code for an HTTP status that did not come from a SluiceError (body parser, router): the first with it. */
export function errorCodeForStatus(status: number): SluiceErrorCode {
  const found = ERROR_CODES.find((code) => HTTP_STATUS_BY_CODE[code] === status);
  return found ?? (status >= 500 ? "internal" : "bad_request");
}
