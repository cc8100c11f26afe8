import type { LineageGraph } from "@sluice/client";
import { KINDS } from "./model";

/** The node kinds with their colour and count; each a checkbox that shows or hides the kind. */
export function Legend({
  graph,
  hidden,
  onToggle,
}: {
  graph: LineageGraph;
  hidden: ReadonlySet<string>;
  onToggle: (kind: string) => void;
}) {
  const counts = new Map<string, number>();
  for (const n of graph.nodes) counts.set(n.type, (counts.get(n.type) ?? 0) + 1);
  return (
    <fieldset className="lineage-legend">
      <legend>Node kinds</legend>
      {KINDS.filter((k) => counts.has(k.kind)).map((k) => (
        <label key={k.kind} className="inline" title={k.hint}>
          <input type="checkbox" checked={!hidden.has(k.kind)} onChange={() => onToggle(k.kind)} />
          <span className={`lineage-swatch k-${k.kind}`} aria-hidden="true" />
          {k.label} <span className="muted">({counts.get(k.kind)})</span>
        </label>
      ))}
    </fieldset>
  );
}
