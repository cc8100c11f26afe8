/** Time source port, so schedulers and timestamps can be driven by a fake clock in tests. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
