import type { LogLevel } from "@sluice/client";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useDeferredValue, useLayoutEffect, useRef, useState } from "react";
import { ErrorBox } from "../../components/ErrorBox";
import { Loading } from "../../components/Loading";
import { basePath } from "../../lib/base";
import { formatUtc } from "../../lib/time";
import type { LogRow, RowFilter } from "./logBuffer";
import { useRunLog } from "./useRunLog";

const LEVELS: readonly LogLevel[] = ["debug", "info", "warning", "error"];
/** Rows closer than this to the end count as "at the bottom" (the log follows new lines only there). */
const BOTTOM_SLACK_PX = 24;
/** Every row has this height (a message with line breaks takes several rows), so scrolling costs nothing per line. */
const ROW_PX = 20;
/** The node filter's value for lines of the run itself (no node). */
export const RUN_LINES = "\u0000run";

const clock = new Intl.DateTimeFormat(undefined, {
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  fractionalSecondDigits: 3,
  hour12: false,
});

function lineTime(timestamp: string): { text: string; title: string } {
  const d = new Date(timestamp);
  if (Number.isNaN(d.getTime())) return { text: timestamp, title: timestamp };
  return { text: clock.format(d), title: formatUtc(d) };
}

/**
 * The run's log: level, node and text filters over the live list, virtualized (only the visible rows exist in the
 * DOM, so 100k lines scroll smoothly). It follows new lines while scrolled to the bottom; scrolled up, it stays put and
 * offers a jump to the latest line.
 */
export function RunLogView({
  runId,
  nodeIds,
  node,
  onNode,
}: {
  runId: string;
  nodeIds: string[];
  node: string;
  onNode: (node: string) => void;
}) {
  const log = useRunLog(runId);
  const [level, setLevel] = useState<"" | LogLevel>("");
  const [text, setText] = useState("");
  const needle = useDeferredValue(text.trim().toLowerCase());
  const { buffer } = log;

  const nodes = [...new Set([...nodeIds, ...buffer.nodes])];
  let filter: RowFilter | null = null;
  if (level || node || needle) {
    filter = (e) =>
      (!level || e.level === level) &&
      (!node || (node === RUN_LINES ? e.node_id === null : e.node_id === node)) &&
      (!needle || e.message.toLowerCase().includes(needle));
  }
  const rows = buffer.filtered(`${level}\u0000${node}\u0000${needle}`, filter);
  const total = buffer.entryCount;
  const shownEntries = filter ? rows.filter((r) => r.part === 0).length : total;

  return (
    <section className="panel run-log-panel" aria-labelledby="run-log-title">
      <div className="run-log-head">
        <h2 id="run-log-title">Log</h2>
        <div className="run-log-filters">
          <label className="inline">
            Level
            <select value={level} onChange={(e) => setLevel(e.target.value as "" | LogLevel)}>
              <option value="">all</option>
              {LEVELS.map((l) => (
                <option key={l} value={l}>
                  {l}
                </option>
              ))}
            </select>
          </label>
          <label className="inline">
            Node
            <select value={node} onChange={(e) => onNode(e.target.value)}>
              <option value="">all nodes</option>
              <option value={RUN_LINES}>run (no node)</option>
              {nodes.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
          <input
            type="search"
            placeholder="Filter text"
            aria-label="Filter log text"
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
          <a className="button" href={`${basePath}/api/runs/${encodeURIComponent(runId)}/logs/export`} download>
            Download logs
          </a>
        </div>
      </div>
      <div className="run-log-stats muted">
        {filter ? `${shownEntries.toLocaleString()} of ` : ""}
        {total.toLocaleString()} line{total === 1 ? "" : "s"}
        {LEVELS.filter((l) => l !== "info" && buffer.levels.get(l)).map((l) => {
          const n = buffer.levels.get(l)!;
          return (
            <span key={l} className={`log-count log-${l}`}>
              {" · "}
              {n.toLocaleString()} {l}
              {l === "debug" || n === 1 ? "" : "s"}
            </span>
          );
        })}
      </div>
      {log.error ? (
        <ErrorBox error={log.error} title="Could not load the log" />
      ) : log.isPending ? (
        <Loading label="Loading log" />
      ) : (
        <LogList
          rows={rows}
          count={rows.length}
          version={log.version}
          emptyText={filter ? "No lines match the filters." : "No log lines yet."}
        />
      )}
    </section>
  );
}

function LogList({
  rows,
  count,
  version,
  emptyText,
}: {
  rows: LogRow[];
  count: number;
  version: number;
  emptyText: string;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const follow = useRef(true);
  const [atBottom, setAtBottom] = useState(true);

  // eslint-disable-next-line react-hooks/incompatible-library -- its functions are only called during render
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_PX,
    overscan: 30,
  });

  // where the log was last scrolled to by following; a reader above it has scrolled up
  const pinnedAt = useRef<number | null>(null);

  // Follow: while at the bottom, new lines keep the end in view. Scrolled up, nothing moves — also when lines arrive
  // before the browser has delivered the reader's scroll event (the position, not the event, decides).
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el || !follow.current) return;
    if (pinnedAt.current !== null && el.scrollTop < pinnedAt.current - BOTTOM_SLACK_PX) {
      follow.current = false;
      return;
    }
    el.scrollTop = el.scrollHeight;
    pinnedAt.current = el.scrollTop;
  }, [count, version]);

  const onScroll = () => {
    const el = scrollRef.current;
    if (!el) return;
    const bottom = el.scrollHeight - el.scrollTop - el.clientHeight <= BOTTOM_SLACK_PX;
    follow.current = bottom;
    if (bottom) pinnedAt.current = el.scrollTop;
    setAtBottom(bottom);
  };

  const jumpToEnd = () => {
    follow.current = true;
    setAtBottom(true);
    const el = scrollRef.current;
    if (el) {
      el.scrollTop = el.scrollHeight;
      pinnedAt.current = el.scrollTop;
    }
  };

  return (
    <div className="run-log-wrap">
      <div
        ref={scrollRef}
        className="run-log"
        role="log"
        aria-label="Run log"
        aria-live="off"
        tabIndex={0}
        onScroll={onScroll}
      >
        {count === 0 ? (
          <div className="empty">{emptyText}</div>
        ) : (
          <div className="run-log-inner" style={{ height: virtualizer.getTotalSize() }}>
            {virtualizer.getVirtualItems().map((item) => {
              const row = rows[item.index]!;
              const e = row.entry;
              if (row.part > 0)
                return (
                  <div
                    key={item.key}
                    className={`log-line cont log-${e.level}`}
                    style={{ transform: `translateY(${item.start}px)` }}
                  >
                    <span className="log-time" />
                    <span className="log-level" />
                    <span className="log-node" />
                    <span className="log-msg">{row.text}</span>
                  </div>
                );
              const t = lineTime(e.timestamp);
              return (
                <div
                  key={item.key}
                  className={`log-line log-${e.level}`}
                  style={{ transform: `translateY(${item.start}px)` }}
                >
                  <span className="log-time" title={t.title}>
                    {t.text}
                  </span>
                  <span className="log-level">{e.level}</span>
                  <span className="log-node" title={e.node_id ?? "run"}>
                    {e.node_id ?? "—"}
                  </span>
                  <span className="log-msg">{row.text}</span>
                </div>
              );
            })}
          </div>
        )}
      </div>
      {!atBottom && count > 0 && (
        <button type="button" className="run-log-jump" onClick={jumpToEnd}>
          ↓ Latest
        </button>
      )}
    </div>
  );
}
