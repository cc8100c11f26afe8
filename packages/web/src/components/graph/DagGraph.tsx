import {
  Background,
  Controls,
  Handle,
  MarkerType,
  MiniMap,
  Position,
  ReactFlow,
  type Edge,
  type Node,
  type NodeProps,
  type Viewport,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import {
  memo,
  startTransition,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
} from "react";
import "./graph.css";
import { layoutGraph, type LayoutResult } from "./layout";

export interface DagNode {
  id: string;
  label: string;
  /** A second, muted line: the node type, the kind of a lineage node… */
  sublabel?: string;
  /** A run or node status: colours the node and is shown as its word. */
  status?: string;
  /** A category (e.g. a lineage node kind): a coloured stripe on the node's left edge, `dag-kind-<kind>`. */
  kind?: string;
  /** Drawn faded (e.g. not matching a search). */
  muted?: boolean;
}

export interface DagEdge {
  source: string;
  target: string;
}

export interface DagGraphProps {
  nodes: DagNode[];
  edges: DagEdge[];
  onSelect?: (id: string) => void;
  selected?: string;
  /** Height of the drawing in pixels (default 480). */
  height?: number;
  /** The accessible name of the drawing (default "Pipeline graph"). */
  label?: string;
}

export const NODE_WIDTH = 200;
export const NODE_HEIGHT = 58;
/** The first view never zooms out further than this (labels stay readable); the controls and the minimap go on. */
const MIN_INITIAL_ZOOM = 0.7;
const PAD = 24;
/** The minimap draws every node on each change: above this it costs more main-thread time than it helps. */
const MINIMAP_MAX_NODES = 200;

interface DagNodeData extends Record<string, unknown> {
  label: string;
  sublabel?: string;
  status?: string;
  kind?: string;
  muted?: boolean;
  selected: boolean;
}
type FlowNode = Node<DagNodeData, "dag">;

const slug = (value: string) => value.trim().toLowerCase().replace(/\s+/g, "-");

const DagNodeView = memo(function DagNodeView({ data }: NodeProps<FlowNode>) {
  const status = data.status ? slug(data.status) : undefined;
  const classes = ["dag-node"];
  if (status) classes.push(`dag-st-${status}`);
  if (data.kind) classes.push(`dag-kind-${slug(data.kind)}`);
  if (data.selected) classes.push("dag-selected");
  if (data.muted) classes.push("dag-muted");
  return (
    <div className={classes.join(" ")} title={data.sublabel ? `${data.label} (${data.sublabel})` : data.label}>
      <Handle type="target" position={Position.Left} isConnectable={false} className="dag-handle" />
      <div className="dag-label">{data.label}</div>
      <div className="dag-meta">
        <span className="dag-sublabel">{data.sublabel}</span>
        {data.status && <span className={`status status-${status}`}>{data.status}</span>}
      </div>
      <Handle type="source" position={Position.Right} isConnectable={false} className="dag-handle" />
    </div>
  );
});

const nodeTypes = { dag: DagNodeView };

/**
 * The first viewport: the whole graph when it fits at a readable zoom; else readable, starting at the left (upstream)
 * end and, when too tall, centred on the first source node.
 */
function initialViewport(
  layout: LayoutResult,
  anchor: { x: number; y: number } | undefined,
  width: number,
  height: number,
): Viewport {
  const fit = Math.min((width - 2 * PAD) / Math.max(layout.width, 1), (height - 2 * PAD) / Math.max(layout.height, 1));
  const zoom = Math.min(1, Math.max(MIN_INITIAL_ZOOM, fit));
  const w = layout.width * zoom;
  const h = layout.height * zoom;
  const a = anchor ?? { x: 0, y: 0 };
  const y = h <= height - 2 * PAD ? (height - h) / 2 : height / 2 - (a.y + NODE_HEIGHT / 2) * zoom;
  return { zoom, x: w <= width - 2 * PAD ? (width - w) / 2 : PAD, y };
}

const minimapColour = (node: FlowNode) => {
  switch (node.data.status ? slug(node.data.status) : "") {
    case "success":
      return "var(--success)";
    case "failed":
    case "timeout":
      return "var(--failed)";
    case "running":
    case "retrying":
      return "var(--running)";
    case "cancelled":
      return "var(--cancelled)";
    case "skipped":
      return "var(--skipped)";
    default:
      return "var(--pending)";
  }
};

interface LayoutState {
  key: string;
  result?: LayoutResult;
  error?: string;
}

/**
 * A directed acyclic graph laid out left to right by ELK (in a worker above 50 nodes), drawn by React Flow. Nodes
 * show their label, sublabel and status word; clicking a node or pressing Enter/Space on it calls `onSelect`.
 */
export function DagGraph({ nodes, edges, onSelect, selected, height = 480, label = "Pipeline graph" }: DagGraphProps) {
  // only the structure (ids and edges) triggers a new layout; statuses, labels and the selection redraw in place
  const structureKey = useMemo(
    () => `${nodes.map((n) => n.id).join("\n")}\u0000${edges.map((e) => `${e.source}\u0001${e.target}`).join("\n")}`,
    [nodes, edges],
  );
  const latest = useRef({ nodes, edges });
  useLayoutEffect(() => {
    latest.current = { nodes, edges };
  });

  const [layout, setLayout] = useState<LayoutState>({ key: "" });
  useEffect(() => {
    const { nodes: ns, edges: es } = latest.current;
    if (ns.length === 0) return;
    const controller = new AbortController();
    layoutGraph(
      {
        nodes: ns.map((n) => ({ id: n.id, width: NODE_WIDTH, height: NODE_HEIGHT })),
        edges: es.map((e) => ({ source: e.source, target: e.target })),
      },
      controller.signal,
    ).then(
      // a transition: React renders the drawing in slices and keeps the page answering input meanwhile
      (result) => startTransition(() => setLayout({ key: structureKey, result })),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setLayout({ key: structureKey, error: error instanceof Error ? error.message : String(error) });
      },
    );
    return () => controller.abort();
  }, [structureKey]);

  const current = layout.key === structureKey ? layout : undefined;
  const positions = current?.result?.positions;

  const flowNodes = useMemo<FlowNode[]>(() => {
    if (!positions) return [];
    const out: FlowNode[] = [];
    for (const n of nodes) {
      const position = positions[n.id];
      if (!position) continue;
      out.push({
        id: n.id,
        type: "dag",
        position,
        width: NODE_WIDTH,
        height: NODE_HEIGHT,
        draggable: false,
        connectable: false,
        selectable: false,
        ariaLabel: [n.label, n.sublabel, n.status].filter(Boolean).join(", "),
        data: {
          label: n.label,
          sublabel: n.sublabel,
          status: n.status,
          kind: n.kind,
          muted: n.muted,
          selected: n.id === selected,
        },
      });
    }
    return out;
  }, [nodes, positions, selected]);

  const flowEdges = useMemo<Edge[]>(() => {
    if (!positions) return [];
    const seen = new Set<string>();
    const muted = new Set(nodes.filter((n) => n.muted).map((n) => n.id));
    const out: Edge[] = [];
    for (const e of edges) {
      const id = `${e.source}\u2192${e.target}`;
      if (seen.has(id) || !positions[e.source] || !positions[e.target] || e.source === e.target) continue;
      seen.add(id);
      const active = selected !== undefined && (e.source === selected || e.target === selected);
      out.push({
        id,
        source: e.source,
        target: e.target,
        selectable: false,
        focusable: false,
        className: active
          ? "dag-edge-active"
          : muted.has(e.source) || muted.has(e.target)
            ? "dag-edge-muted"
            : undefined,
        markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 },
      });
    }
    return out;
  }, [nodes, edges, positions, selected]);

  const box = useRef<HTMLDivElement>(null);
  const [viewport, setViewport] = useState<{ key: string; value: Viewport }>();
  useLayoutEffect(() => {
    const el = box.current;
    if (!current?.result || !el || viewport?.key === current.key) return;
    const { nodes: ns, edges: es } = latest.current;
    const targets = new Set(es.map((e) => e.target));
    const first = ns.find((n) => !targets.has(n.id) && current.result?.positions[n.id]) ?? ns[0];
    const anchor = first && current.result.positions[first.id];
    setViewport({ key: current.key, value: initialViewport(current.result, anchor, el.clientWidth, el.clientHeight) });
  }, [current, viewport]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (!onSelect || (event.key !== "Enter" && event.key !== " ")) return;
    const target = event.target as HTMLElement;
    if (!target.classList.contains("react-flow__node")) return;
    const id = target.dataset.id;
    if (id === undefined) return;
    event.preventDefault();
    onSelect(id);
  };

  const ready = !!current?.result && viewport?.key === current.key;
  let body;
  if (nodes.length === 0) {
    body = <div className="dag-state muted">No nodes to draw.</div>;
  } else if (current?.error) {
    body = (
      <div className="dag-state">
        <div className="error-box" role="alert">
          Could not lay out the graph: {current.error}
        </div>
      </div>
    );
  } else if (!ready || !current?.result || !viewport) {
    body = (
      <div className="dag-state loading" role="status" aria-live="polite">
        <span className="spinner" aria-hidden="true" />
        Laying out {nodes.length} {nodes.length === 1 ? "node" : "nodes"}…
      </div>
    );
  } else {
    body = (
      <ReactFlow
        key={current.key}
        nodes={flowNodes}
        edges={flowEdges}
        nodeTypes={nodeTypes}
        defaultViewport={viewport.value}
        minZoom={0.02}
        maxZoom={2}
        fitViewOptions={{ padding: 0.08 }}
        onlyRenderVisibleElements
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        nodesFocusable
        edgesFocusable={false}
        colorMode="system"
        proOptions={{ hideAttribution: true }}
        onNodeClick={onSelect ? (_event, node) => onSelect(node.id) : undefined}
      >
        <Background gap={20} size={1} />
        <Controls showInteractive={false} />
        {nodes.length > 12 && nodes.length <= MINIMAP_MAX_NODES && (
          <MiniMap<FlowNode> pannable zoomable nodeColor={minimapColour} nodeStrokeWidth={0} />
        )}
      </ReactFlow>
    );
  }

  return (
    <div
      ref={box}
      className={`dag-graph${onSelect ? " dag-clickable" : ""}`}
      role="region"
      aria-label={label}
      aria-busy={!ready && nodes.length > 0 && !current?.error}
      data-node-count={nodes.length}
      data-laid-out={ready ? "true" : "false"}
      style={{ height }}
      onKeyDown={onKeyDown}
    >
      {body}
    </div>
  );
}

export default DagGraph;
