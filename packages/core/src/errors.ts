import { HTTP_STATUS_BY_CODE, type SluiceErrorCode } from "./model/error-codes.js";

export { ERROR_CODES, HTTP_STATUS_BY_CODE, errorCodeForStatus, type SluiceErrorCode } from "./model/error-codes.js";

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
