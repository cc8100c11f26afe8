/**
 * The script a `code` node's worker runs (passed to `new Worker(..., { eval: true })`, so no separate build step).
 * The user's code is the body of an async function evaluated in a fresh `vm` context inside the worker: it sees
 * `rows`, `columns`, `inputs`, `params`, `console`, `setTimeout` and the JavaScript built-ins — not `require` or
 * `process`. Console calls go to the parent as run-log messages.
 */
export const CODE_WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require("node:worker_threads");
const vm = require("node:vm");
const util = require("node:util");
const send = (level) => (...args) => parentPort.postMessage({ kind: "log", level, message: util.format(...args) });
const sandboxConsole = { log: send("info"), info: send("info"), debug: send("debug"), warn: send("warning"), error: send("error") };
const fail = (message) => parentPort.postMessage({ kind: "error", message });
const describe = (e) => (e && typeof e === "object" && "message" in e ? (e.name ? e.name + ": " : "") + e.message : String(e));
let script;
try {
  script = new vm.Script("(async () => {\n" + workerData.code + "\n})()", { filename: "code-node.js", lineOffset: -1 });
} catch (e) {
  fail("syntax error in code: " + describe(e));
}
if (script) {
  const context = vm.createContext({
    console: sandboxConsole,
    rows: workerData.rows,
    columns: workerData.columns,
    inputs: workerData.inputs,
    params: workerData.params,
    setTimeout,
    clearTimeout,
  });
  Promise.resolve()
    .then(() => script.runInContext(context))
    .then(
      (value) => {
        try {
          parentPort.postMessage({ kind: "result", value });
        } catch (e) {
          fail("code returned a value that cannot be passed on (functions or symbols?): " + describe(e));
        }
      },
      (e) => fail("code threw " + describe(e)),
    );
}
`;
