/** An error response from the Sluice API: its HTTP status and the server's `error` text. */
export class SluiceApiError extends Error {
  override readonly name = "SluiceApiError";
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }

  /** Validation errors, when the server sent a list (`errors`). */
  get errors(): string[] {
    const list = (this.body as { errors?: unknown } | null)?.errors;
    return Array.isArray(list) ? list.map(String) : [];
  }
}
