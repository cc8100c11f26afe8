import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import type { LogEntry } from "@sluice/client";
import { useOp } from "../../lib/api";
import { useLiveEvents } from "../../lib/live";
import { LogBuffer } from "./logBuffer";

const FLUSH_MS = 150;

export interface RunLog {
  buffer: LogBuffer;
  /** Changes whenever the buffer does (re-render on it). */
  version: number;
  isPending: boolean;
  error: unknown;
}

/**
 * The whole log of a run, live: `GET /runs/{id}/logs`, then every `log` event of this run appended as it arrives
 * (batched, so a flood of lines costs a few renders a second). A refetch (after the event stream reconnects) rebuilds
 * it without duplicating what came live.
 */
export function useRunLog(runId: string): RunLog {
  const query = useOp("runLogs", { params: { run_id: runId } }, { staleTime: Infinity });
  const [buffer] = useState(() => new LogBuffer());
  const version = useSyncExternalStore(buffer.subscribe, buffer.getVersion);
  const pending = useRef<LogEntry[]>([]);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => {
    if (query.data) buffer.reset(query.data);
  }, [buffer, query.data]);

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  useLiveEvents((event) => {
    if (event.type !== "log" || event.run_id !== runId) return;
    pending.current.push({
      run_id: event.run_id,
      node_id: event.node_id ?? null,
      level: event.level,
      message: event.message,
      timestamp: event.timestamp,
    });
    if (timer.current === null) {
      timer.current = setTimeout(() => {
        timer.current = null;
        const batch = pending.current;
        pending.current = [];
        buffer.append(batch);
      }, FLUSH_MS);
    }
  });

  return { buffer, version, isPending: query.isPending || !buffer.loaded, error: query.error };
}
