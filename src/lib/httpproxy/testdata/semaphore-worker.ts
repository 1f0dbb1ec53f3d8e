// Test worker for shared-semaphore.test.ts: takes and releases slots of a shared semaphore `rounds`
// times, recording in `inside` how many holders there are and in `peak` the most it saw.
import { parentPort, workerData } from 'node:worker_threads';
import { SharedSemaphore } from '../shared-semaphore.ts';

const { buffer, counters, rounds } = workerData as { buffer: SharedArrayBuffer; counters: SharedArrayBuffer; rounds: number };
const s = new SharedSemaphore(buffer);
const c = new Int32Array(counters); // [inside, peak]
let granted = 0;
let denied = 0;
const jobs = Array.from({ length: 4 }, async () => {
  for (let i = 0; i < rounds; i++) {
    if (!(await s.acquire(5_000).granted)) {
      denied++;
      continue;
    }
    const inside = Atomics.add(c, 0, 1) + 1;
    for (let peak = Atomics.load(c, 1); inside > peak; peak = Atomics.load(c, 1)) Atomics.compareExchange(c, 1, peak, inside);
    await new Promise((r) => setImmediate(r));
    Atomics.sub(c, 0, 1);
    granted++;
    s.release();
  }
});
await Promise.all(jobs);
parentPort!.postMessage({ granted, denied });
