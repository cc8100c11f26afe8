/**
 * Calls `probe` every `everyMs` until it returns something other than `undefined`, for at most `timeoutMs`; resolves
 * with that value, or with `undefined` once the time is up (the caller's assertion then says what never came). A
 * deadline, not a count of short waits: on CI's busy machine a count of waits runs out before a slow effect arrives.
 */
export async function pollUntil<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  { timeoutMs = 30_000, everyMs = 20 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
