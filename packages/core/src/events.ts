import { EventEmitter } from "eventemitter3";
import type { SluiceEventMap } from "./model/event.js";

type Listeners = { [K in keyof SluiceEventMap]: (event: SluiceEventMap[K]) => void };

/**
 * Set (not enumerable) on an event that is in the event log already, to its `seq`: a run's end, logged in the
 * transaction that ended the run. The event journal delivers it with that number instead of logging it again.
 */
export const LOGGED_SEQ: unique symbol = Symbol("sluice.loggedSeq");

/** The event's number in the event log, if it was logged before it was emitted (LOGGED_SEQ). */
export const loggedSeqOf = (event: object): number | undefined => (event as { [LOGGED_SEQ]?: number })[LOGGED_SEQ];

/** The typed event bus: every run, node, log and pipeline event of this process goes through it. */
export class SluiceEvents extends EventEmitter<Listeners> {}
