import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useRef } from "react";
import { Link } from "react-router";
import { StatusBadge } from "../../components/StatusBadge";
import { Time } from "../../components/Time";
import type { PipelineRow } from "./rows";

/** Above this many rows, only the visible ones are in the DOM. */
const VIRTUALIZE_ABOVE = 60;
const ROW_HEIGHT = 45;

export interface RowActions {
  canToggle: boolean;
  canTrigger: boolean;
  canSelect: boolean;
  onToggleEnabled: (row: PipelineRow) => void;
  onTrigger: (row: PipelineRow) => void;
  onSelect: (id: string, selected: boolean) => void;
  /** Ids with a write in flight (their buttons are disabled). */
  busy: ReadonlySet<string>;
}

/** The pipelines table; rows are virtualized when there are many (a thousand stay smooth). */
export function PipelineTable({
  rows,
  selected,
  actions,
  onSelectAll,
}: {
  rows: PipelineRow[];
  selected: ReadonlySet<string>;
  actions: RowActions;
  onSelectAll: (selected: boolean) => void;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtual = rows.length > VIRTUALIZE_ABOVE;
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read during render by design
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    enabled: virtual,
  });
  const items = virtual ? virtualizer.getVirtualItems() : null;
  const visible = items
    ? items.map((i) => ({ row: rows[i.index]!, index: i.index }))
    : rows.map((row, index) => ({ row, index }));
  const padTop = items && items.length > 0 ? items[0]!.start : 0;
  const padBottom = items && items.length > 0 ? virtualizer.getTotalSize() - items[items.length - 1]!.end : 0;
  const allSelected = rows.length > 0 && rows.every((r) => selected.has(r.id));
  const someSelected = !allSelected && rows.some((r) => selected.has(r.id));
  const columns = actions.canSelect ? 8 : 7;

  return (
    <div ref={scrollRef} className={virtual ? "pl-table-scroll virtual" : "pl-table-scroll"}>
      <table className="pl-table" aria-rowcount={rows.length + 1}>
        <colgroup>
          {actions.canSelect && <col style={{ width: 40 }} />}
          <col />
          <col style={{ width: 130 }} />
          <col style={{ width: 180 }} />
          <col style={{ width: 120 }} />
          <col style={{ width: 170 }} />
          <col style={{ width: actions.canToggle ? 160 : 100 }} />
          <col style={{ width: actions.canTrigger ? 124 : 8 }} />
        </colgroup>
        <thead>
          <tr>
            {actions.canSelect && (
              <th className="pl-check">
                <input
                  type="checkbox"
                  aria-label="Select all pipelines on this page"
                  checked={allSelected}
                  ref={(el) => {
                    if (el) el.indeterminate = someSelected;
                  }}
                  onChange={(e) => onSelectAll(e.target.checked)}
                />
              </th>
            )}
            <th>Name</th>
            <th>Tags</th>
            <th>Last run</th>
            <th>Next run</th>
            <th>Schedule</th>
            <th>Enabled</th>
            <th className="pl-actions-col">
              <span className="pl-sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {padTop > 0 && (
            <tr aria-hidden="true" className="pl-spacer">
              <td colSpan={columns} style={{ height: padTop }} />
            </tr>
          )}
          {visible.map(({ row, index }) => (
            <Row
              key={row.id}
              row={row}
              index={index}
              selected={selected.has(row.id)}
              busy={actions.busy.has(row.id)}
              actions={actions}
            />
          ))}
          {padBottom > 0 && (
            <tr aria-hidden="true" className="pl-spacer">
              <td colSpan={columns} style={{ height: padBottom }} />
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

const Row = memo(function Row({
  row,
  index,
  selected,
  busy,
  actions,
}: {
  row: PipelineRow;
  index: number;
  selected: boolean;
  busy: boolean;
  actions: RowActions;
}) {
  const href = `/pipelines/${encodeURIComponent(row.id)}`;
  return (
    <tr aria-rowindex={index + 2} className={selected ? "pl-row selected" : "pl-row"} data-pipeline-id={row.id}>
      {actions.canSelect && (
        <td className="pl-check">
          <input
            type="checkbox"
            aria-label={`Select ${row.name}`}
            checked={selected}
            onChange={(e) => actions.onSelect(row.id, e.target.checked)}
          />
        </td>
      )}
      <td className="pl-name">
        <Link to={href} title={row.description || row.name}>
          {row.name}
        </Link>
        {row.description && <span className="pl-desc muted">{row.description}</span>}
      </td>
      <td className="pl-tags">
        {row.tags.map((t) => (
          <span key={t} className="pl-tag">
            {t}
          </span>
        ))}
      </td>
      <td className="pl-last">
        <StatusBadge status={row.last_run_status} /> {row.last_run_at && <Time value={row.last_run_at} relative />}
      </td>
      <td>
        {!row.schedule ? (
          <span className="muted">—</span>
        ) : !row.enabled ? (
          <span className="muted">paused</span>
        ) : (
          <Time value={row.next_run_at} relative />
        )}
      </td>
      <td className="pl-schedule">
        {row.schedule ? (
          <>
            <code>{row.schedule}</code>
            {row.schedule_timezone !== "UTC" && <span className="muted pl-tz">{row.schedule_timezone}</span>}
          </>
        ) : (
          <span className="muted">manual</span>
        )}
      </td>
      <td>
        <span className={row.enabled ? "pl-enabled" : "pl-disabled"}>{row.enabled ? "enabled" : "disabled"}</span>
        {actions.canToggle && (
          <button
            type="button"
            className="pl-small"
            title={row.enabled ? `Pause the schedule of ${row.name}` : `Resume the schedule of ${row.name}`}
            disabled={busy}
            onClick={() => actions.onToggleEnabled(row)}
          >
            {row.enabled ? "Disable" : "Enable"}
          </button>
        )}
      </td>
      <td className="pl-actions-col">
        {actions.canTrigger && (
          <button type="button" disabled={busy} onClick={() => actions.onTrigger(row)} title={`Run ${row.name} now`}>
            <span aria-hidden="true">▶</span> Trigger
          </button>
        )}
      </td>
    </tr>
  );
});
