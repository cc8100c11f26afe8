// A code runner process (started by code-runner-pool.ts with an empty environment and Node's permission model).
// It runs each `code` job in a fresh V8 isolate (isolated-vm) that has no Node API and no reference to any object
// of this process: rows, params and the result cross as JSON text; console lines and timers cross as primitives
// through two callbacks. Message shapes: runner-protocol.ts. argv: isolated-vm's entry, then the default memory
// limit and log-line cap (for the isolate prepared ahead of the first job), then the longest console line sent.
import { createRequire } from "node:module";

const ivm = createRequire(import.meta.url)(process.argv[2]);
/** Longest console line sent (runner-protocol.ts MAX_LOG_LINE_SENT). */
const MAX_LINE_SENT = Number(process.argv[5]);

/** Runs inside the isolate before the user's code: builds its globals from primitives only. */
const PRELUDE = String.raw`
"use strict";
{
  const logCallback = globalThis.__log, scheduleCallback = globalThis.__schedule;
  delete globalThis.__log;
  delete globalThis.__schedule;
  const show = (v) => {
    if (typeof v === "string") return v;
    try {
      const json = JSON.stringify(v);
      return json === undefined ? String(v) : json;
    } catch {
      return String(v);
    }
  };
  // the cap is counted here so a flood costs no crossing per line
  const maxLines = $0;
  let lines = 0, dropped = 0;
  const line = (level) => (...args) => {
    if (lines >= maxLines) dropped++;
    else {
      lines++;
      logCallback(level, args.map(show).join(" "));
    }
  };
  globalThis.__dropped = () => dropped;
  const console = Object.freeze({ log: line("info"), info: line("info"), debug: line("debug"), warn: line("warning"), error: line("error") });
  const pending = new Map();
  let lastTimer = 0;
  const setTimeout = (fn, ms, ...args) => {
    const id = ++lastTimer;
    if (typeof fn === "function") pending.set(id, () => fn(...args));
    scheduleCallback(id, Number(ms) || 0);
    return id;
  };
  const clearTimeout = (id) => { pending.delete(id); };
  // the runner calls this (it holds the reference; user code cannot reach it) when a timer is due
  const wake = (id) => {
    const fn = pending.get(id);
    pending.delete(id);
    if (fn) fn();
  };
  globalThis.__wake = wake;
  Object.defineProperties(globalThis, {
    console: { value: console },
    setTimeout: { value: setTimeout },
    clearTimeout: { value: clearTimeout },
  });
  // WebAssembly memory is allocated outside the isolate's heap, so memory_mb could not bound it
  delete globalThis.WebAssembly;
  globalThis.__inputs = [];
}
`;

/**
 * Runs inside the isolate when the context is made, before any user code: the functions that check the result and
 * hand it out in JSON batches. The runner keeps references to them and removes them from the globals, and they use
 * only built-ins captured here, so user code can neither replace them nor change what they do. (The server still
 * checks every batch it receives.)
 */
const COLLECT = String.raw`
{
  const stringify = JSON.stringify, isArray = Array.isArray, resolve = Promise.resolve.bind(Promise);
  const apply = Reflect.apply, then = Promise.prototype.then;
  const shape = "code must return an array of row objects or { columns, rows }";
  const isRow = (v) => v !== null && typeof v === "object" && !isArray(v);
  let rows = [], next = 0;
  globalThis.__collect = (maxRows) =>
    apply(then, resolve(globalThis.__result), [(value) => {
      let columns = null;
      if (isArray(value)) rows = value;
      else if (isRow(value) && isArray(value.rows)) {
        rows = value.rows;
        if (isArray(value.columns)) {
          columns = [];
          for (let i = 0; i < value.columns.length; i++) {
            if (typeof value.columns[i] !== "string") { columns = null; break; }
            columns[i] = value.columns[i];
          }
        }
      } else throw new Error(shape + "; got " + (value === null ? "null" : typeof value));
      const count = rows.length;
      if (count > maxRows) throw new Error("code returned " + count + " rows; at most " + maxRows + " may leave a code node");
      for (let i = 0; i < count; i++) if (!isRow(rows[i])) throw new Error(shape + "; got an array with a non-object item");
      return columns === null ? null : stringify(columns);
    }]);
  globalThis.__nextBatch = (perBatch, maxBytes) => {
    if (next >= rows.length) return undefined;
    let out = "[", count = 0;
    while (next < rows.length && count < perBatch) {
      let json;
      try {
        json = stringify(rows[next]);
      } catch (e) {
        throw new Error("code returned a value that cannot be passed on (" + e.message + ")");
      }
      if (typeof json !== "string") throw new Error("code returned a row that cannot be passed on");
      if (json.length > maxBytes) throw new Error("code returned a row larger than " + maxBytes / 1048576 + " MB");
      if (count > 0 && out.length + json.length + 1 > maxBytes) break;
      out += (count > 0 ? "," : "") + json;
      count++;
      next++;
    }
    return out + "]";
  };
}
`;

const send = (message) => new Promise((resolve) => process.send(message, () => resolve()));

const describe = (e) => {
  const message = e && typeof e === "object" && "message" in e ? String(e.message) : String(e);
  return message.replace(/^Uncaught\s+/, "");
};

/** The failure message for an error raised while the job's isolate ran (or was stopped). */
function failure(spec, e, timedOut) {
  const message = describe(e);
  if (/memory limit/i.test(message)) return `code ran out of memory (limit ${spec.memoryMb} MB, set memory_mb)`;
  if (timedOut || /disposed|timed out/i.test(message)) {
    return `code timed out after ${Math.round(spec.timeoutMs / 1000)}s and was stopped`;
  }
  return `code failed: ${message}`;
}

/**
 * A context with its globals set up, made ahead of the job that will use it (right after the previous job, so a
 * job does not wait for it). Each job gets a new context; after a job that ended cleanly the next context is made in
 * the same isolate (its globals and built-ins are new, so nothing a job changed is seen by the next one); a job that
 * failed, timed out or ran out of memory ends the whole runner process. `job` is filled in when a job takes it.
 */
function prepareSandbox(memoryMb, maxLogLines, isolate = new ivm.Isolate({ memoryLimit: memoryMb })) {
  const sandbox = { isolate, memoryMb, maxLogLines, timers: new Set(), job: { id: 0, timeoutMs: 0 } };
  const log = (level, message) => {
    process.send({
      t: "log",
      id: sandbox.job.id,
      level,
      message: message.length > MAX_LINE_SENT ? `${message.slice(0, MAX_LINE_SENT)}…` : message,
    });
  };
  const ctx = isolate.createContextSync();
  ctx.global.setSync("__log", new ivm.Callback((level, message) => log(String(level), String(message))));
  ctx.global.setSync(
    "__schedule",
    new ivm.Callback((timerId, ms) => {
      const t = setTimeout(
        () => {
          sandbox.timers.delete(t);
          if (!isolate.isDisposed)
            wake.apply(undefined, [Number(timerId)], { timeout: sandbox.job.timeoutMs }).catch(() => undefined);
        },
        Math.min(Math.max(0, Number(ms) || 0), sandbox.job.timeoutMs),
      );
      sandbox.timers.add(t);
    }),
  );
  ctx.evalClosureSync(PRELUDE, [maxLogLines]);
  ctx.evalSync(COLLECT);
  const [wake, droppedLines, collect, nextBatch] = ["__wake", "__dropped", "__collect", "__nextBatch"].map((name) => {
    const reference = ctx.global.getSync(name, { reference: true });
    ctx.global.deleteSync(name);
    return reference;
  });
  sandbox.ctx = ctx;
  sandbox.ready = Promise.resolve({ ctx, droppedLines, collect, nextBatch });
  return sandbox;
}

let spare = null;

/** The prepared sandbox if it fits the job, else a new one; a fresh spare is prepared for the next job. */
function takeSandbox(spec) {
  const fits =
    spare && spare.memoryMb === spec.memoryMb && spare.maxLogLines === spec.maxLogLines && !spare.isolate.isDisposed;
  const sandbox = fits ? spare : prepareSandbox(spec.memoryMb, spec.maxLogLines);
  if (!fits && spare && !spare.isolate.isDisposed) spare.isolate.dispose();
  spare = null;
  return sandbox;
}

/**
 * One job: input batches are parsed into the isolate as they come (each one acknowledged so the server sends at
 * most a couple ahead), then the user's code runs and the output leaves in batches.
 */
function startJob(id, spec) {
  const sandbox = takeSandbox(spec);
  sandbox.job = { id, timeoutMs: spec.timeoutMs };
  const { isolate, timers } = sandbox;
  let timedOut = false;
  let failed = false;
  const log = (level, message) => process.send({ t: "log", id, level, message });
  const deadline = setTimeout(() => {
    timedOut = true;
    if (!isolate.isDisposed) isolate.dispose();
  }, spec.timeoutMs);
  const finish = (clean) => {
    clearTimeout(deadline);
    for (const t of timers) clearTimeout(t);
    if (!clean) {
      // the server replaces this runner after a failure; nothing is kept
      if (!isolate.isDisposed) isolate.dispose();
      return;
    }
    sandbox.ctx.release();
    // ready for the next job before it arrives: a new context in the same isolate
    spare = prepareSandbox(spec.memoryMb, spec.maxLogLines, isolate);
  };
  const fail = async (message) => {
    if (failed) return;
    failed = true;
    finish(false);
    await send({ t: "error", id, message });
  };
  let refs = null;
  const context = sandbox.ready.then((ready) => {
    refs = ready;
    return ready.ctx;
  });
  let chain = context.then(() => undefined);
  const step = (work) => {
    chain = chain.then(async () => {
      if (failed) return;
      try {
        await work(await context);
      } catch (e) {
        await fail(failure(spec, e, timedOut));
      }
    });
  };
  return {
    id,
    push(input, json) {
      step(async (ctx) => {
        // the small steps run synchronously (no thread hop per call); each has the node's time limit
        ctx.evalClosureSync(
          "const rows = JSON.parse($1), into = (globalThis.__inputs[$0] ??= []); for (let i = 0; i < rows.length; i++) into.push(rows[i]);",
          // an ExternalCopy moves the text into the isolate faster than a plain string argument
          [input, new ivm.ExternalCopy(json).copyInto({ release: true })],
          { timeout: spec.timeoutMs },
        );
        process.send({ t: "ack", id });
      });
    },
    run() {
      step(async (ctx) => {
        ctx.evalClosureSync(
          `const all = globalThis.__inputs; delete globalThis.__inputs;
           const meta = JSON.parse($0);
           const inputs = meta.inputs.map((m, i) => ({ id: m.id, columns: m.columns, rows: all[i] ?? [] }));
           Object.defineProperties(globalThis, {
             inputs: { value: inputs, writable: true },
             rows: { value: inputs[0] ? inputs[0].rows : [], writable: true },
             columns: { value: inputs[0] ? inputs[0].columns : [], writable: true },
             params: { value: meta.params, writable: true },
           });`,
          [JSON.stringify({ inputs: spec.inputs, params: spec.params })],
          { timeout: spec.timeoutMs },
        );
        let script;
        try {
          script = isolate.compileScriptSync(
            `globalThis.__result = (async () => {\n${spec.code}\n})();\nglobalThis.__result.catch(() => {});\nundefined;`,
            {
              filename: "code-node.js",
              lineOffset: -1,
            },
          );
        } catch (e) {
          await fail(`syntax error in code: ${describe(e)}`);
          return;
        }
        script.runSync(ctx, { timeout: spec.timeoutMs });
        let columns;
        try {
          columns = await refs.collect.apply(undefined, [spec.maxOutputRows], {
            result: { promise: true, copy: true },
            timeout: spec.timeoutMs,
          });
        } catch (e) {
          if (isolate.isDisposed) throw e;
          const message = describe(e);
          const name = e && typeof e === "object" && typeof e.name === "string" ? e.name : "Error";
          await fail(/^code (must return|returned)/.test(message) ? message : `code threw ${name}: ${message}`);
          return;
        }
        for (;;) {
          const json = refs.nextBatch.applySync(undefined, [spec.rowsPerBatch, spec.maxBatchBytes], {
            timeout: spec.timeoutMs,
          });
          if (json === undefined) break;
          await send({ t: "out", id, json });
        }
        const dropped = refs.droppedLines.applySync(undefined, [], { timeout: spec.timeoutMs });
        if (dropped > 0)
          log("warning", `${dropped} more console lines were dropped (at most ${spec.maxLogLines} per node)`);
        finish(true);
        await send({ t: "done", id, columns: typeof columns === "string" ? JSON.parse(columns) : null });
      });
    },
  };
}

let job = null;

process.on("message", (m) => {
  if (m.t === "job") job = startJob(m.id, m.job);
  else if (m.t === "rows" && job?.id === m.id) job.push(m.input, m.json);
  else if (m.t === "run" && job?.id === m.id) job.run();
});
// the server went away: nothing left to do
process.on("disconnect", () => process.exit(0));
spare = prepareSandbox(Number(process.argv[3]), Number(process.argv[4]));
process.send({ t: "ready" });
