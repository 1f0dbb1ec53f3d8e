import { describe, expect, it } from 'vitest';
import { runWorkers } from './workers.ts';

const tick = () => new Promise((r) => setImmediate(r));

describe('runWorkers', () => {
  it('runs every item with bounded concurrency', async () => {
    let running = 0;
    let peak = 0;
    const done: number[] = [];
    await runWorkers([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await tick();
      done.push(n);
      running--;
    });
    expect(done.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(peak).toBe(3);
  });

  it('stops on the first failure, aborts the others, and throws it', async () => {
    const started: number[] = [];
    let sawAbort = false;
    const run = runWorkers([1, 2, 3, 4, 5, 6], 2, async (n, signal) => {
      started.push(n);
      if (n === 2) throw new Error('boom 2');
      await tick();
      await tick();
      if (signal.aborted) sawAbort = true;
    });
    await expect(run).rejects.toThrow('boom 2');
    expect(started).toEqual([1, 2]);
    expect(sawAbort).toBe(true);
  });

  it('throws the outer abort reason', async () => {
    const ac = new AbortController();
    const run = runWorkers([1, 2, 3], 1, async (n, signal) => {
      if (n === 1) ac.abort(new Error('cancelled'));
      signal.throwIfAborted();
    }, ac.signal);
    await expect(run).rejects.toThrow('cancelled');
  });

  it('does nothing for no items and rejects bad concurrency', async () => {
    await runWorkers([], 4, async () => {
      throw new Error('never');
    });
    await expect(runWorkers([1], 0, async () => {})).rejects.toThrow(RangeError);
  });
});
