/**
 * Characters of log text a run's nodes may write (what they log themselves: a `code` node's console, a source's page
 * lines). Past it their lines are counted, not kept: a run's logs are read back whole (`GET /runs/{id}/logs`, the
 * export, the run page), and 500 `code` nodes logging 1,000 lines of 4,000 characters each would make 2 GB of them.
 * The engine's own lines (a node's start, end, retries and failure) are kept whatever the budget: they are few.
 */
export const RUN_LOG_CHARS = 8 * 1024 * 1024;

/** Longest node error kept (node run, run, log line, events, DLQ entry); a longer one keeps its start and `…`. */
export const NODE_ERROR_CHARS = 4_000;

/** What a run's nodes have logged against {@link RUN_LOG_CHARS}, and what it dropped. */
export class RunLogBudget {
  private used = 0;
  private droppedLines = 0;
  private droppedChars = 0;

  constructor(private readonly limit = RUN_LOG_CHARS) {}

  /**
   * Whether a node's line of `chars` characters is kept. The first line refused returns `"full"` so that the caller
   * says once, in the log, that lines are now dropped.
   */
  admit(chars: number): "kept" | "full" | "dropped" {
    if (this.droppedLines === 0 && this.used + chars <= this.limit) {
      this.used += chars;
      return "kept";
    }
    this.droppedLines++;
    this.droppedChars += chars;
    return this.droppedLines === 1 ? "full" : "dropped";
  }

  /** The line that tells, at the run's end, how much was dropped; null when nothing was. */
  summary(): string | null {
    if (this.droppedLines === 0) return null;
    return `${this.droppedLines} log line(s) of the run's nodes (${this.droppedChars} characters) were dropped: a run keeps at most ${this.limit} characters of its nodes' log lines`;
  }
}
