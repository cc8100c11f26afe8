import { z } from "zod";
import { dataSetFromRows, defineNodeType, type NodeTypeRegistry, type Row } from "../../src/index.js";

/** A promise and what resolves it (Node 20 has no `Promise.withResolvers`). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** What the fixture nodes saw, for assertions. */
export const probe = {
  calls: new Map<string, number>(),
  running: 0,
  maxRunning: 0,
  aborted: new Set<string>(),
  /** What a `code` node with `read_signal_after_gate` found in its `ctx.signal` when it read it. */
  signalRead: new Map<string, { aborted: boolean; reason: string | undefined }>(),
  /** Opened by a test (`openGate`): `code` nodes with `read_signal_after_gate` wait for it. */
  gate: deferred(),
  openGate() {
    this.gate.resolve();
  },
  failUntil: new Map<string, number>(),
  /** When a `code` node last failed as planned (`failUntil`), by `performance.now()`. */
  failedAt: 0,
  /** Data sets a `source_file` with `probe_rows: key` emits as they are: many rows, made outside the run. */
  dataSets: new Map<string, { columns: string[]; rows: Row[] }>(),
  reset() {
    this.calls.clear();
    this.running = 0;
    this.maxRunning = 0;
    this.aborted.clear();
    this.signalRead.clear();
    this.gate = deferred();
    this.failUntil.clear();
    this.dataSets.clear();
    this.failedAt = 0;
  },
};

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });

const count = (key: string) => probe.calls.set(key, (probe.calls.get(key) ?? 0) + 1).get(key) as number;

/**
 * Test node types standing in for the real ones: `source_file` emits `config.rows`, or the probe's data set
 * `config.probe_rows`; `join` concatenates its inputs
 * in order; `code` sleeps, fails on demand (`probe.failUntil`: attempts that fail), waits for its abort signal, hangs
 * without ever reading it (`hang`), or reads it only once the test opens `probe.gate` (`read_signal_after_gate`, into
 * `probe.signalRead`), or holds the thread (`busy_ms`);
 * `condition` returns `skipDownstream` when `config.pass` is false.
 */
export const FIXTURE_NODE_TYPES: NodeTypeRegistry = {
  source_file: defineNodeType({
    type: "source_file",
    configSchema: z.looseObject({
      rows: z.array(z.record(z.string(), z.unknown())).optional(),
      probe_rows: z.string().optional(),
    }),
    async run(ctx, config) {
      count(`${ctx.runId}:${ctx.node.id}`);
      count(ctx.node.id);
      const made = config.probe_rows === undefined ? undefined : probe.dataSets.get(config.probe_rows);
      return { output: made ?? dataSetFromRows((config.rows ?? []) as Row[]) };
    },
  }),
  join: defineNodeType({
    type: "join",
    configSchema: z.looseObject({}),
    async run(ctx, _config, inputs) {
      count(ctx.node.id);
      ctx.log("info", `inputs from ${ctx.inputIds.join(",")}`);
      return { output: dataSetFromRows(inputs.flatMap((i) => i.rows)) };
    },
  }),
  code: defineNodeType({
    type: "code",
    configSchema: z.looseObject({
      sleep_ms: z.number().optional(),
      wait_for_abort: z.boolean().optional(),
      hang: z.boolean().optional(),
      read_signal_after_gate: z.boolean().optional(),
      busy_ms: z.number().optional(),
    }),
    async run(ctx, config, inputs) {
      const attempt = count(ctx.node.id);
      probe.running++;
      probe.maxRunning = Math.max(probe.maxRunning, probe.running);
      try {
        if (config.wait_for_abort) {
          await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
          probe.aborted.add(ctx.node.id);
          throw new Error("aborted by signal");
        }
        if (config.hang) await new Promise<never>(() => undefined);
        if (config.read_signal_after_gate) {
          await probe.gate.promise;
          const { aborted, reason } = ctx.signal;
          probe.signalRead.set(ctx.node.id, { aborted, reason: (reason as Error | undefined)?.message });
        }
        if (config.sleep_ms) await sleep(config.sleep_ms, ctx.signal);
        // holds the thread, as work over one costly row does: no timer runs meanwhile
        for (const until = performance.now() + (config.busy_ms ?? 0); performance.now() < until;);
        if (attempt <= (probe.failUntil.get(ctx.node.id) ?? 0)) {
          probe.failedAt = performance.now();
          throw new Error(`planned failure ${attempt}`);
        }
        return { output: dataSetFromRows(inputs.flatMap((i) => i.rows)) };
      } finally {
        probe.running--;
      }
    },
  }),
  condition: defineNodeType({
    type: "condition",
    configSchema: z.looseObject({ pass: z.boolean() }),
    async run(_ctx, config, inputs) {
      return { output: inputs[0] ?? dataSetFromRows([]), skipDownstream: !config.pass };
    },
  }),
};
