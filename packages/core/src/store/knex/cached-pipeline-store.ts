import { jsonDigest, withDigest } from "../../content-digest.js";
import type { Pipeline } from "../../model/pipeline.js";
import type { PipelineStore } from "../ports.js";

/** Pipelines kept; beyond this the oldest entry goes. */
const MAX_CACHED = 1000;
/** An entry is read again after this long, whatever the feed says: a bound should a notification ever be missed. */
const MAX_AGE_MS = 5000;

/** Tells of every write of a pipeline row, by this instance or any other sharing the database. */
export interface PipelineChangeFeed {
  /**
   * `onChange(id)` after a pipeline row was written, `onChange(null)` once (re)connected after missing some;
   * `onLost` when it stops hearing (until the next `onChange(null)`).
   */
  listen(
    onChange: (pipelineId: string | null) => void,
    onLost: (e: unknown) => void,
  ): Promise<{ close(): Promise<void> }>;
}

interface Entry {
  /** The pipeline as JSON: every caller gets its own copy (parsing it costs a third of `structuredClone`). */
  json: string;
  /** Its `contentDigest`, handed out with every copy: what the run service and the engine key their memos by. */
  digest: string;
  at: number;
}

/**
 * `get` served from memory while the change feed is connected: the database announces every write of a pipeline
 * row (PostgreSQL: trigger `pipelines_changed` → NOTIFY, sent at commit; SQLite: `sqliteChangeFeed`), from this
 * instance or any other, and the entry is dropped; this instance drops its own writes' entries before they return.
 * It saves the pipeline read of every trigger: on PostgreSQL one of about two round trips per run. While the feed is
 * lost, every `get` reads the database, and the cache starts empty when it is back.
 */
export async function cachedPipelineStore(
  base: PipelineStore,
  feed: PipelineChangeFeed,
): Promise<PipelineStore & { close(): Promise<void> }> {
  const cache = new Map<string, Entry>();
  let live = true;
  /** Bumped by every change: a read that overlapped one does not fill the cache with what it read. */
  let generation = 0;
  const forget = (id: string | null) => {
    generation++;
    if (id === null) cache.clear();
    else cache.delete(id);
  };
  const subscription = await feed.listen(
    (id) => {
      forget(id);
      if (id === null) live = true; // (re)connected; a stray notification of a lost connection proves nothing
    },
    () => {
      live = false;
      forget(null);
    },
  );
  const written =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>, idOf: (...args: A) => string) =>
    async (...args: A): Promise<R> => {
      try {
        return await write(...args);
      } finally {
        forget(idOf(...args));
      }
    };
  return {
    ...base,
    insert: written(base.insert, (p) => p.id),
    update: written(base.update, (p) => p.id),
    delete: written(base.delete, (id) => id),
    async get(id) {
      const hit = live ? cache.get(id) : undefined;
      if (hit && Date.now() - hit.at < MAX_AGE_MS) return withDigest(JSON.parse(hit.json) as Pipeline, hit.digest);
      const before = generation;
      const pipeline = await base.get(id);
      if (pipeline && live && before === generation) {
        const json = JSON.stringify(pipeline);
        const digest = jsonDigest(json);
        cache.delete(id);
        cache.set(id, { json, digest, at: Date.now() });
        if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value as string);
        return withDigest(pipeline, digest);
      }
      return pipeline;
    },
    close: () => subscription.close(),
  };
}
