import { v7 as uuidv7 } from "uuid";

/** Resource ids are time-ordered UUIDv7 strings. */
export const newId = (): string => uuidv7();
