import { EventEmitter } from "eventemitter3";
import type { SluiceEventMap } from "./model/event.js";

type Listeners = { [K in keyof SluiceEventMap]: (event: SluiceEventMap[K]) => void };

/** The typed event bus: every run, node, log and pipeline event of this process goes through it. */
export class SluiceEvents extends EventEmitter<Listeners> {}
