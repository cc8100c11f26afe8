import { memo, useMemo, type ReactNode } from "react";
import { lineDiff } from "./lineDiff";

/** A unified line diff of two texts, with old/new line numbers; unchanged runs longer than 6 lines are folded. */
export const VersionDiff = memo(function VersionDiff({ before, after }: { before: string; after: string }) {
  const lines = useMemo(() => lineDiff(before, after), [before, after]);
  const added = lines.filter((l) => l.kind === "add").length;
  const removed = lines.filter((l) => l.kind === "del").length;
  if (added === 0 && removed === 0) return <p className="muted">The two definitions are identical.</p>;
  const CONTEXT = 3;
  const near = new Array<boolean>(lines.length).fill(false);
  lines.forEach((l, i) => {
    if (l.kind === "same") return;
    for (let k = Math.max(0, i - CONTEXT); k <= Math.min(lines.length - 1, i + CONTEXT); k++) near[k] = true;
  });
  const rows: ReactNode[] = [];
  let skipped = 0;
  lines.forEach((l, i) => {
    if (!near[i]) {
      skipped++;
      return;
    }
    if (skipped) {
      rows.push(
        <div key={`s${i}`} className="pl-diff-fold">
          ⋯ {skipped} unchanged line{skipped === 1 ? "" : "s"}
        </div>,
      );
      skipped = 0;
    }
    rows.push(
      <div key={i} className={`pl-diff-line pl-diff-${l.kind}`}>
        <span className="pl-diff-no">{l.a ?? ""}</span>
        <span className="pl-diff-no">{l.b ?? ""}</span>
        <span
          className="pl-diff-sign"
          aria-label={l.kind === "add" ? "added" : l.kind === "del" ? "removed" : undefined}
        >
          {l.kind === "add" ? "+" : l.kind === "del" ? "−" : " "}
        </span>
        <span className="pl-diff-text">{l.text}</span>
      </div>,
    );
  });
  if (skipped) {
    rows.push(
      <div key="s-end" className="pl-diff-fold">
        ⋯ {skipped} unchanged line{skipped === 1 ? "" : "s"}
      </div>,
    );
  }
  return (
    <div>
      <p className="pl-diff-stat">
        <span className="pl-diff-plus">+{added}</span> <span className="pl-diff-minus">−{removed}</span> lines
      </p>
      <div className="pl-diff" role="table" aria-label="Version diff">
        {rows}
      </div>
    </div>
  );
});
