/**
 * Characters of log a run may keep: its lines' text (as JSON writes it) and node ids, and {@link LOG_LINE_OVERHEAD}
 * more per line (an empty line is still a row, an entry of `GET /runs/{id}/logs` and an event). Past it lines are
 * counted, not kept: a run's logs are read back whole (the logs, their export, the run page), and 500 `code` nodes
 * logging 1,000 lines of 4,000 characters each would make 2 GB of them. What a run's nodes end as stays in their node
 * runs and events.
 */
export const RUN_LOG_CHARS = 8 * 1024 * 1024;

/** What one log line costs besides its text and node id, in characters. */
export const LOG_LINE_OVERHEAD = 100;

/** Longest node error kept (node run, run, log line, events, DLQ entry); a longer one keeps its start and `…`. */
export const NODE_ERROR_CHARS = 4_000;

/**
 * Longest log line kept; a longer one keeps its start, masked before the cut, and `…`. Room for a node error and the
 * engine's words around it (`attempt 1/3 failed: …; retrying in 2 s`).
 */
export const LOG_LINE_CHARS = NODE_ERROR_CHARS + 1_000;

/** Characters of a node error a `node.retrying` event carries (one per retry of every node: up to 100 × 500). */
export const RETRY_EVENT_ERROR_CHARS = 500;

/** Characters needing an escape in JSON: each is written as `\uXXXX` or `\x`. */
// eslint-disable-next-line no-control-regex -- the control characters are what is looked for
const ESCAPED = /[\u0000-\u001f"\\]/;

/**
 * The length of `text` as a JSON string's content, which is what the logs, their events and the replay send: a line
 * of control characters is six times longer there (`\u0001`).
 */
export const jsonTextLength = (text: string): number =>
  ESCAPED.test(text) ? JSON.stringify(text).length - 2 : text.length;

/** What a run has logged against {@link RUN_LOG_CHARS}, and what it dropped. */
export class RunLogBudget {
  private used = 0;
  private droppedLines = 0;
  private droppedChars = 0;

  constructor(private readonly limit = RUN_LOG_CHARS) {}

  /**
   * Whether a line of `chars` characters (text and node id) is kept. The first line refused returns `"full"`, so that
   * the caller says once, in the log, that lines are dropped from now on.
   */
  admit(chars: number): "kept" | "full" | "dropped" {
    const cost = chars + LOG_LINE_OVERHEAD;
    if (this.droppedLines === 0 && this.used + cost <= this.limit) {
      this.used += cost;
      return "kept";
    }
    this.droppedLines++;
    this.droppedChars += chars;
    return this.droppedLines === 1 ? "full" : "dropped";
  }

  /** The line that tells, at the run's end, how much was dropped; null when nothing was. */
  summary(): string | null {
    if (this.droppedLines === 0) return null;
    return (
      `${this.droppedLines} log line(s) (${this.droppedChars} characters) were dropped: a run keeps at most ` +
      `${this.limit} characters of log, counting ${LOG_LINE_OVERHEAD} more for each line`
    );
  }
}
