/**
 * An output's data handed to the store as its JSON text, made already: the engine makes a large output's JSON a piece
 * of rows at a time (engine/dataset-json.ts) rather than have the store write it on the server's thread in one go.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/** The JSON text a `node_outputs` row stores for `data` (a value, or its JsonText). */
export const outputDataJson = (data: unknown): string => (data instanceof JsonText ? data.text : JSON.stringify(data));
