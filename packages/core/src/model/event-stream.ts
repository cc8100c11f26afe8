import { z } from "zod";
import type { StreamedEvent } from "./event-types.js";

// The WebSocket protocol of `/ws` and `/api/ws` (docs/events.md, docs/events.md): what a client may send, what the
// server answers. The server parses every client message with the schema below; the client builds its messages
// from the same types.

const id = z.string().min(1);

/** A message a client sends over the event stream. */
export const StreamClientMessageSchema = z.discriminatedUnion("type", [
  // narrow the stream to a run, a pipeline, or both
  z.object({
    type: z.literal("subscribe"),
    run_id: id.optional(),
    pipeline_id: id.optional(),
    /** With `run_id`: first replay the run's events with a greater `seq` (the last one seen before reconnecting). */
    since: z.number().int().nonnegative().optional(),
  }),
  // all events again
  z.object({ type: z.literal("unsubscribe") }),
  // answered by `pong` with the latest sequence number
  z.object({ type: z.literal("ping") }),
]);
export type StreamClientMessage = z.infer<typeof StreamClientMessageSchema>;
export type StreamSubscribeMessage = Extract<StreamClientMessage, { type: "subscribe" }>;

/** What the server sends besides events: greeting, subscription confirmation, pong and errors. */
export type StreamControlMessage =
  | { type: "hello"; seq: number }
  | { type: "subscribed"; run_id?: string; pipeline_id?: string; seq: number }
  | { type: "pong"; seq: number }
  | { type: "error"; error: string };

/** Every message the server sends. */
export type StreamServerMessage = StreamedEvent | StreamControlMessage;
