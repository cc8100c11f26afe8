import { subscribeEvents, type OperationId, type StreamEvent } from "@sluice/client";
import { useQueryClient } from "@tanstack/react-query";
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from "react";
import { eventStreamUrl } from "./api";

type Listener = (event: StreamEvent) => void;

interface Live {
  /** Whether the event stream is up; while it is, nothing polls. */
  connected: boolean;
  /** Calls `listener` for every event until the returned function is called. */
  listen(listener: Listener): () => void;
}

const LiveContext = createContext<Live>({ connected: false, listen: () => () => undefined });

export function useLive(): Live {
  return useContext(LiveContext);
}

/** Calls `onEvent` for each live event while the component is mounted (the latest callback, without resubscribing). */
export function useLiveEvents(onEvent: Listener): void {
  const { listen } = useLive();
  const ref = useRef(onEvent);
  useEffect(() => {
    ref.current = onEvent;
  });
  useEffect(() => listen((e) => ref.current(e)), [listen]);
}

/** Which cached reads an event makes stale, by operation id (see `opKey`). Log lines go to listeners only. */
function staleAfter(event: StreamEvent): readonly OperationId[] {
  if (event.type === "log") return [];
  if (event.type.startsWith("node.")) return ["getRun"];
  return ["getRun", "listRuns", "dashboard", "pipelineSummary", "listPipelines", "calendar", "listDlq"];
}

const FLUSH_MS = 400;
const POLL_WHILE_DISCONNECTED_MS = 10_000;

/**
 * One WebSocket for the whole UI. Every event refreshes the reads it touches (batched, at most every 400 ms, so a
 * burst of a thousand node events costs a handful of refetches) and goes to the views listening. While the socket is
 * down, queries poll every 10 s instead; when it is back, polling stops and everything is refreshed once.
 */
export function LiveProvider({ children }: { children: ReactNode }) {
  const qc = useQueryClient();
  const [connected, setConnected] = useState(false);
  const listeners = useRef(new Set<Listener>());
  const [live] = useState<Live>(() => ({
    connected: false,
    listen: (listener) => {
      listeners.current.add(listener);
      return () => listeners.current.delete(listener);
    },
  }));

  useEffect(() => {
    const pending = new Set<OperationId>();
    let timer: ReturnType<typeof setTimeout> | null = null;
    const flush = () => {
      timer = null;
      for (const id of pending) void qc.invalidateQueries({ queryKey: [id] });
      pending.clear();
    };
    let wasDown = false;
    const sub = subscribeEvents(
      eventStreamUrl(),
      (event) => {
        for (const id of staleAfter(event)) pending.add(id);
        if (pending.size > 0 && timer === null) timer = setTimeout(flush, FLUSH_MS);
        for (const listener of listeners.current) listener(event);
      },
      {
        onOpen: () => {
          setConnected(true);
          qc.setDefaultOptions({ queries: { ...qc.getDefaultOptions().queries, refetchInterval: false } });
          if (wasDown) void qc.invalidateQueries();
        },
        onDrop: () => {
          wasDown = true;
          setConnected(false);
          qc.setDefaultOptions({
            queries: { ...qc.getDefaultOptions().queries, refetchInterval: POLL_WHILE_DISCONNECTED_MS },
          });
        },
      },
    );
    return () => {
      sub.close();
      if (timer) clearTimeout(timer);
    };
  }, [qc]);

  return <LiveContext.Provider value={{ ...live, connected }}>{children}</LiveContext.Provider>;
}
