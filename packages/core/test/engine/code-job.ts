/** A code runner pool's job of `code`, with small limits. */
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

/** The options of a job nobody cancels or reads the log of. */
export const codeRunOptions = () => ({ signal: new AbortController().signal, log: () => undefined });
