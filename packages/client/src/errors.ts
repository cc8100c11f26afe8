import type { SluiceErrorCode } from "@sluice/core/model";

/** An error response from the Sluice API: its HTTP status, the server's `error` text and its stable `code`. */
export class SluiceApiError extends Error {
  override readonly name = "SluiceApiError";
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }

  /**
   * The stable error code of the body (`not_found`, `conflict`, `rate_limited`, …: see docs/http.md); undefined when
   * the answer did not come from Sluice (e.g. a proxy's 502 page).
   */
  get code(): SluiceErrorCode | undefined {
    const code = (this.body as { code?: unknown } | null)?.code;
    return typeof code === "string" ? (code as SluiceErrorCode) : undefined;
  }

  /** Validation errors, when the server sent a list (`errors`). */
  get errors(): string[] {
    const list = (this.body as { errors?: unknown } | null)?.errors;
    return Array.isArray(list) ? list.map(String) : [];
  }
}
