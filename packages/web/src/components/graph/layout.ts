import type { LayoutRequest, LayoutResult } from "./elk-layout";

export type { LayoutRequest, LayoutResult };

/** Above this many nodes the layout runs in a Web Worker: the page stays responsive while ELK works. */
export const WORKER_THRESHOLD = 50;

function aborted(): DOMException {
  return new DOMException("The layout was superseded", "AbortError");
}

function inWorker(request: LayoutRequest, signal: AbortSignal): Promise<LayoutResult> {
  return new Promise((resolve, reject) => {
    // Vite emits the worker as its own file (same origin, `worker-src 'self'`): no blob: URL, no eval
    const worker = new Worker(new URL("./elk-layout.worker.ts", import.meta.url), {
      type: "module",
      name: "elk-layout",
    });
    const finish = () => {
      worker.terminate();
      signal.removeEventListener("abort", onAbort);
    };
    const onAbort = () => {
      finish();
      reject(aborted());
    };
    signal.addEventListener("abort", onAbort);
    worker.onmessage = (event: MessageEvent<{ result?: LayoutResult; error?: string }>) => {
      finish();
      if (event.data.result) resolve(event.data.result);
      else reject(new Error(event.data.error ?? "The layout failed"));
    };
    worker.onerror = (event: ErrorEvent) => {
      finish();
      reject(new Error(event.message || "The layout worker could not start"));
    };
    worker.postMessage({ request });
  });
}

/** Lays a graph out: on this thread (still async) when small, in a worker when big. Rejects with AbortError. */
export async function layoutGraph(request: LayoutRequest, signal: AbortSignal): Promise<LayoutResult> {
  if (signal.aborted) throw aborted();
  if (request.nodes.length > WORKER_THRESHOLD) return inWorker(request, signal);
  const { layoutWithElk } = await import("./elk-layout");
  if (signal.aborted) throw aborted();
  const result = await layoutWithElk(request);
  if (signal.aborted) throw aborted();
  return result;
}
