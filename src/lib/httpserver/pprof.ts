import { Session } from 'node:inspector/promises';
import type { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { getHeapSnapshot } from 'node:v8';

// Profiles are served in Chrome DevTools formats: a CPU profile is a .cpuprofile JSON document
// (open it in Chrome DevTools → Performance, or in VS Code, or convert with pprof-format tools);
// a heap profile is a .heapsnapshot (Chrome DevTools → Memory → Load).

let cpuProfileBusy = false;

/** CpuProfileBusyError means another CPU profile is being captured; the route answers 409. */
export class CpuProfileBusyError extends Error {}

/**
 * captureCpuProfile samples the main thread for `seconds` (or until signal aborts) and returns the
 * profile as .cpuprofile JSON. Only one capture runs at a time.
 */
export async function captureCpuProfile(seconds: number, signal: AbortSignal): Promise<string> {
  if (cpuProfileBusy) throw new CpuProfileBusyError('another CPU profile is being captured; try again when it ends');
  cpuProfileBusy = true;
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    await delay(seconds * 1000, undefined, { signal }).catch(() => undefined);
    const { profile } = await session.post('Profiler.stop');
    return JSON.stringify(profile);
  } finally {
    session.disconnect();
    cpuProfileBusy = false;
  }
}

/** heapSnapshot streams a V8 heap snapshot (.heapsnapshot JSON); it pauses the process while taken. */
export function heapSnapshot(): Readable {
  return getHeapSnapshot();
}
