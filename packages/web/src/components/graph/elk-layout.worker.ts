/// <reference lib="webworker" />
// The layout of big graphs, off the page's main thread. One request per worker: the page terminates it afterwards
// (or when a newer layout supersedes it).
import { layoutWithElk, type LayoutRequest } from "./elk-layout";

export interface LayoutMessage {
  request: LayoutRequest;
}

const scope = self as unknown as DedicatedWorkerGlobalScope;

// elkjs's bundled build installs its own `self.onmessage` when it finds itself in a worker; it ignores messages
// without its `cmd` field, so a listener (not `onmessage`) leaves both in place without a clash.
scope.addEventListener("message", (event: MessageEvent<LayoutMessage>) => {
  const { request } = event.data;
  layoutWithElk(request).then(
    (result) => scope.postMessage({ result }),
    (error: unknown) => scope.postMessage({ error: error instanceof Error ? error.message : String(error) }),
  );
});
