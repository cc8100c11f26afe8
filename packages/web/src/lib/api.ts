import { SluiceApiError, SluiceClient, type CallInput, type CallOutput, type OperationId } from "@sluice/client";
import { basePath } from "./base";
import {
  MutationCache,
  QueryCache,
  QueryClient,
  useMutation,
  useQuery,
  useQueryClient,
  type UseQueryOptions,
} from "@tanstack/react-query";

/** The one client of the UI: same origin, the session cookie (set by login) authenticates every call. */
export const client = new SluiceClient({
  baseUrl: window.location.origin + basePath,
  credentials: "same-origin",
});

/** The WebSocket URL of the event stream on this origin. */
export function eventStreamUrl(): string {
  const { protocol, host } = window.location;
  return `${protocol === "https:" ? "wss" : "ws"}://${host}${basePath}/api/ws`;
}

/** The API's own message for an error (`{error}` of a 4xx/5xx), or what went wrong before it answered. */
export function errorMessage(error: unknown): string {
  if (error instanceof SluiceApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

export function isApiStatus(error: unknown, status: number): boolean {
  return error instanceof SluiceApiError && error.status === status;
}

/**
 * A 401 from any other read or write means the session is gone (expired, signed out elsewhere): the session is
 * checked again, and the gate (lib/session.tsx) sends the visitor to /login.
 */
function onApiError(error: unknown, key?: readonly unknown[]): void {
  if (!(error instanceof SluiceApiError) || error.status !== 401 || key?.[0] === "getMe") return;
  void queryClient.invalidateQueries({ queryKey: ["getMe"] });
}

export const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError: (error, query) => onApiError(error, query.queryKey) }),
  mutationCache: new MutationCache({ onError: (error) => onApiError(error) }),
  defaultOptions: {
    queries: {
      // live updates come over the WebSocket (lib/live.tsx invalidates what an event touches): no polling while up
      staleTime: 30_000,
      refetchOnWindowFocus: false,
      retry: (count, error) => !(error instanceof SluiceApiError && error.status < 500) && count < 2,
    },
  },
});

/**
 * Query keys start with the operation id, then its input: `["getRun", {params: {run_id}}]`. lib/live.tsx invalidates
 * by operation id, so a key never has to be spelled twice.
 */
export function opKey<K extends OperationId>(id: K, input?: CallInput<K>): readonly unknown[] {
  return input === undefined ? [id] : [id, input];
}

function call<K extends OperationId>(id: K, input?: CallInput<K>): Promise<CallOutput<K>> {
  return (client.call as (i: K, x?: CallInput<K>) => Promise<CallOutput<K>>)(id, input);
}

/** A read of one operation, cached under `opKey(id, input)`. */
export function useOp<K extends OperationId>(
  id: K,
  input?: CallInput<K>,
  options: Omit<UseQueryOptions<CallOutput<K>, Error, CallOutput<K>, readonly unknown[]>, "queryKey" | "queryFn"> = {},
) {
  return useQuery({ queryKey: opKey(id, input), queryFn: () => call(id, input), ...options });
}

/** Starts a read early (before any component asks for it), cached under the same key `useOp` uses. */
export function prefetchOp<K extends OperationId>(id: K, input?: CallInput<K>): void {
  void queryClient.prefetchQuery({ queryKey: opKey(id, input), queryFn: () => call(id, input) });
}

/**
 * A write of one operation. After success, the queries of the operations in `invalidates` are refetched (every input
 * of each). The error stays on the mutation for the view to show (the API's message).
 */
export function useOpMutation<K extends OperationId>(id: K, invalidates: readonly OperationId[] = []) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: CallInput<K>) => call(id, input),
    onSuccess: async () => {
      await Promise.all(invalidates.map((key) => qc.invalidateQueries({ queryKey: [key] })));
    },
  });
}
