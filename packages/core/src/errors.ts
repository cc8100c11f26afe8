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
  "internal",
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
  internal: 500,
});

export interface SluiceErrorExtra {
  /** A list of validation errors (pipeline validation). */
  errors?: string[];
  /** Structured details, e.g. zod issues. Never secrets. */
  details?: unknown;
  /** Seconds until a rate-limited or locked caller may retry. */
  retryAfterSeconds?: number;
}

export class SluiceError extends Error {
  override readonly name = "SluiceError";
  readonly code: SluiceErrorCode;
  readonly extra: SluiceErrorExtra;

  constructor(code: SluiceErrorCode, message: string, extra: SluiceErrorExtra = {}) {
    super(message);
    this.code = code;
    this.extra = extra;
  }

  get status(): number {
    return HTTP_STATUS_BY_CODE[this.code];
  }
}

export const notFound = (what: string, id: string): SluiceError =>
  new SluiceError("not_found", `${what} '${id}' not found`);

export function isSluiceError(e: unknown): e is SluiceError {
  return e instanceof SluiceError;
}
