import type { Knex } from "knex";
import type { StreamedEvent } from "../../model/event-types.js";
import type { EventLogEntry, EventLogStore } from "../ports.js";
import type { Dialect } from "./dialects/dialect.js";
import { chunksOfSize, toInt, toStr } from "./rows.js";

type DbRow = Record<string, unknown>;

/** Sequence numbers per DELETE when old events are pruned. */
const PRUNE_CHUNK = 5000;

const eventFromRow = (row: DbRow): StreamedEvent =>
  ({ ...(JSON.parse(toStr(row.body)) as object), seq: toInt(row.seq) }) as StreamedEvent;

interface EventRow {
  run_id: string;
  origin: string;
  body: string;
  created_at: string;
}

/** The rows of `entries` in `run_events`, in chunks of one multi-row INSERT each. */
export function eventRowChunks(entries: readonly EventLogEntry[], maxRows?: number): EventRow[][] {
  const createdAt = new Date().toISOString();
  const rows = entries.map((e) => ({
    run_id: e.event.run_id,
    origin: e.origin,
    body: e.body,
    created_at: createdAt,
  }));
  return chunksOfSize(rows, (row) => row.body.length, maxRows);
}

/**
 * Appends `entries` on `db` (a run-state batch's transaction, or the database) and returns their sequence numbers,
 * in order. PostgreSQL announces the new rows itself, at commit (trigger run_events_appended, migration 009).
 */
export async function appendEvents(
  db: Knex | Knex.Transaction,
  dialect: Dialect,
  entries: readonly EventLogEntry[],
): Promise<number[]> {
  const seqs: number[] = [];
  for (const chunk of eventRowChunks(entries)) {
    if (dialect.supportsUpdateReturning) {
      seqs.push(...seqsOf((await db("run_events").insert(chunk, ["seq"])) as DbRow[]));
    } else {
      // MySQL returns the first id only; the ids of one INSERT increase in row order (not always consecutively),
      // and this process has one batch in flight at a time, so its own rows from that id on are this chunk's
      const [first] = (await db("run_events").insert(chunk)) as number[];
      const own = (await db("run_events")
        .select("seq")
        .where("seq", ">=", first ?? 0)
        .where({ origin: chunk[0]!.origin })
        .orderBy("seq")
        .limit(chunk.length)) as DbRow[];
      seqs.push(...own.map((r) => toInt(r.seq)));
    }
  }
  return seqs;
}

/** The sequence numbers an `INSERT … RETURNING seq` of one chunk gave, in row order (they increase along it). */
export const seqsOf = (rows: readonly DbRow[]): number[] => rows.map((r) => toInt(r.seq)).sort((a, b) => a - b);

export function createEventLogStore(knex: Knex, dialect: Dialect, target: string): EventLogStore {
  const notifications = dialect.eventNotifications;
  return {
    append: (entries) => appendEvents(knex, dialect, entries),

    async after(after, origin, limit) {
      const rows = (await knex("run_events")
        .select("seq", "body")
        .where("seq", ">", after)
        .whereNot({ origin })
        .orderBy("seq")
        .limit(limit)) as DbRow[];
      return rows.map(eventFromRow);
    },

    async ofRun(runId, since, limit) {
      const q = knex("run_events")
        .select("seq", "body")
        .where({ run_id: runId })
        .where("seq", ">", since)
        .orderBy("seq");
      if (limit !== undefined) q.limit(limit);
      return ((await q) as DbRow[]).map(eventFromRow);
    },

    async lastSeq() {
      const row = (await knex("run_events").max({ seq: "seq" }).first()) as DbRow | undefined;
      return toInt(row?.seq);
    },

    async prune(beforeIso) {
      // the first event from `seq` on (a point read of the primary key)
      const from = async (seq: number) =>
        (await knex("run_events").select("seq", "created_at").where("seq", ">=", seq).orderBy("seq").first()) as
          DbRow | undefined;
      // each end on its own: SQLite reads min and max asked together by scanning the whole log
      const first = await from(0);
      const last = (await knex("run_events").select("seq").orderBy("seq", "desc").first()) as DbRow | undefined;
      if (!first || !last) return 0;
      // where the old events end: the log is appended nearly in time order, so bisecting along the primary key finds
      // the first event that is not old in a few point reads, with no index on `created_at` to keep up to date with
      // every event, and no plan that could turn this into a scan of the log
      let low = toInt(first.seq);
      let end = toInt(last.seq) + 1;
      while (low < end) {
        const mid = Math.floor((low + end) / 2);
        const next = await from(mid);
        // none from `mid` on (pruned meanwhile), or one not old: nothing from `mid` on is deleted
        if (!next || toStr(next.created_at) >= beforeIso) end = mid;
        else low = toInt(next.seq) + 1;
      }
      // in ranges of the primary key, so no one statement holds the database for long (SQLite blocks while it runs);
      // still only old events: one stamped a moment before another but numbered after it (its batch waited for a
      // lock), or an instance's clock behind the others', must not take a newer event with it. A gap in the numbers
      // is jumped over, not walked through.
      let deleted = 0;
      for (let seq: number | undefined = toInt(first.seq); seq !== undefined && seq < end;) {
        const upTo = Math.min(seq + PRUNE_CHUNK, end);
        deleted += await knex("run_events")
          .where("seq", ">=", seq)
          .where("seq", "<", upTo)
          .where("created_at", "<", beforeIso)
          .delete();
        const next = upTo < end ? await from(upTo) : undefined;
        seq = next ? toInt(next.seq) : undefined;
      }
      return deleted;
    },

    ...(notifications && {
      async watch(origin: string, wake: () => void, onError: (e: unknown) => void) {
        return notifications.listen(target, (from) => from !== origin && wake(), onError);
      },
    }),
  };
}
