import { JsonText } from "../store/output-data.js";
import type { KeptOutputPartKind, RunClaim, RunStore } from "../store/ports.js";
import type { DataSet, Row } from "./dataset.js";
import type { DataSetJsonParts } from "./dataset-json.js";
import type { WriteBuffer } from "./write-buffer.js";

/**
 * Characters of rows in one part of a kept output. A failed run keeps the outputs of its succeeded nodes for resume;
 * one of 200,000 rows is about 12 MB of JSON, which SQLite took 140 ms to write in one statement, holding the
 * server's thread. In parts of a million characters each statement takes about a tenth of that, and the event loop
 * turns between them.
 */
export const KEPT_PART_CHARS = 1_000_000;

/**
 * Queues node `nodeId`'s output, made as JSON in parts (dataSetJsonParts with KEPT_PART_CHARS), to be kept for resume.
 * One part: one `output` row, `{"columns": …, "rows": …}`, as a kept output always was. More: each part as a row of
 * its own (`output:1`, `output:2`, …), each written before the next is queued, then the `output` row with the number
 * of parts (`{"columns": …, "parts": n}`), so that a resume finds the `output` row only once every part was written
 * before it. An `output` row kept before (a run that fails again after a resume) is marked as naming no parts in the
 * first part's transaction: a write stopped half-way leaves no `output` row that would read old parts with new ones.
 */
export async function keepOutput(
  buffer: Pick<WriteBuffer, "output" | "flush">,
  at: { runId: string; nodeId: string; claim: RunClaim | undefined },
  json: DataSetJsonParts,
): Promise<void> {
  const record = (kind: KeptOutputPartKind | "output", text: string) =>
    buffer.output({ run_id: at.runId, node_id: at.nodeId, kind, data: new JsonText(text) }, at.claim);
  if (json.rows.length === 1) return record("output", `{"columns":${json.columns},"rows":${json.rows[0]}}`);
  record("output", `{"columns":${json.columns},"parts":0}`);
  for (const [i, rows] of json.rows.entries()) {
    record(`output:${i + 1}`, rows);
    await buffer.flush(); // a transaction of its own: the server's other work goes on between two parts
  }
  record("output", `{"columns":${json.columns},"parts":${json.rows.length}}`);
}

/**
 * Node `nodeId`'s output kept by a failed run (keepOutput), or null where there is none, or it is not whole (a part
 * missing or not a list of rows: a batch that failed, a server that stopped while writing it).
 */
export async function keptOutput(
  store: Pick<RunStore, "output">,
  runId: string,
  nodeId: string,
): Promise<DataSet | null> {
  const kept = (await store.output(runId, nodeId, "output")) as { columns?: unknown; rows?: unknown; parts?: unknown };
  if (!kept || !Array.isArray(kept.columns)) return null;
  if (Array.isArray(kept.rows)) return kept as DataSet;
  const parts = kept.parts;
  if (typeof parts !== "number" || !Number.isSafeInteger(parts) || parts < 1) return null;
  const rows: Row[] = [];
  for (let i = 1; i <= parts; i++) {
    const part = await store.output(runId, nodeId, `output:${i}`);
    if (!Array.isArray(part)) return null;
    for (const row of part as Row[]) rows.push(row);
  }
  return { columns: kept.columns as string[], rows };
}
