/** A code runner pool's job of `code`, with small limits, and the options of a run nobody cancels or reads the log of. */
export const codeJob = (code: string) => ({
  code,
  params: {},
  inputs: [],
  timeoutMs: 20_000,
  memoryMb: 64,
  maxLogLines: 10,
  maxOutputRows: 1000,
  maxOutputChars: 1_000_000,
});

export const codeRunOptions = () => ({ signal: new AbortController().signal, log: () => undefined });
