import { setTimeout as sleep } from 'node:timers/promises';

/** Now returns the current time in milliseconds since the Unix epoch. */
export type Now = () => number;

/** Delay resolves after `ms` milliseconds, or rejects with the signal's reason when it aborts first. */
export type Delay = (ms: number, signal?: AbortSignal) => Promise<void>;

/** realDelay is the Delay of the process timers. */
export const realDelay: Delay = async (ms, signal) => {
  await sleep(ms, undefined, signal ? { signal } : undefined);
};
