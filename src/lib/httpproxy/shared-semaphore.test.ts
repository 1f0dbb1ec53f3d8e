import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { SharedSemaphore } from './shared-semaphore.ts';

describe('SharedSemaphore', () => {
  it('grants up to capacity and wakes queued acquirers in order as slots free', async () => {
    const s = SharedSemaphore.create(2);
    expect(s.tryAcquire()).toBe(true);
    expect(s.tryAcquire()).toBe(true);
    expect(s.tryAcquire()).toBe(false);
    const order: string[] = [];
    const a = s.acquire(10_000).granted.then((ok) => order.push(`a:${ok}`));
    const b = s.acquire(10_000).granted.then((ok) => order.push(`b:${ok}`));
    expect(s.waiting).toBe(2);
    expect(s.tryAcquire()).toBe(false);
    s.release();
    await a;
    expect(order).toEqual(['a:true']);
    s.release();
    await b;
    expect(order).toEqual(['a:true', 'b:true']);
    expect(s.current).toBe(2);
    expect(s.waiting).toBe(0);
  });

  it('times out, and a cancelled waiter answers at once and passes its wake-up on', async () => {
    const s = SharedSemaphore.create(1);
    expect(s.tryAcquire()).toBe(true);
    expect(await s.acquire(0).granted).toBe(false);
    expect(await s.acquire(5).granted).toBe(false);
    const cancelled = s.acquire(10_000);
    const next = s.acquire(10_000);
    cancelled.cancel();
    expect(await cancelled.granted).toBe(false);
    s.release();
    expect(await next.granted).toBe(true);
    expect(s.current).toBe(1);
  });

  it('wakes waiters that fit when the capacity grows, and keeps holders above a lowered one', async () => {
    const s = SharedSemaphore.create(1);
    expect(s.tryAcquire()).toBe(true);
    const w = s.acquire(10_000);
    s.setCapacity(2);
    expect(await w.granted).toBe(true);
    s.setCapacity(1);
    expect(s.current).toBe(2);
    s.release();
    expect(s.tryAcquire()).toBe(false);
    s.release();
    expect(s.tryAcquire()).toBe(true);
  });

  it('is shared by a buffer: a release in one wrapper wakes a waiter of another', async () => {
    const s = SharedSemaphore.create(1);
    const other = new SharedSemaphore(s.buffer);
    expect(other.tryAcquire()).toBe(true);
    const w = s.acquire(10_000);
    other.release();
    expect(await w.granted).toBe(true);
    expect(other.current).toBe(1);
  });

  it('never lets threads hold more slots than the capacity together', async () => {
    const capacity = 3;
    const s = SharedSemaphore.create(capacity);
    const counters = new SharedArrayBuffer(16);
    const rounds = 300;
    const results = await Promise.all(Array.from({ length: 3 }, () => new Promise<{ granted: number; denied: number }>((resolve, reject) => {
      const w = new Worker(new URL('./testdata/semaphore-worker.ts', import.meta.url), { workerData: { buffer: s.buffer, counters, rounds } });
      w.once('message', resolve);
      w.once('error', reject);
    })));
    const c = new Int32Array(counters);
    expect(results.reduce((n, r) => n + r.granted, 0)).toBe(3 * 4 * rounds);
    expect(results.every((r) => r.denied === 0)).toBe(true);
    expect(Atomics.load(c, 1)).toBe(capacity);
    expect(s.current).toBe(0);
    expect(s.waiting).toBe(0);
  });

  it('rejects a buffer too small to hold its counters', () => {
    expect(() => new SharedSemaphore(new SharedArrayBuffer(4))).toThrow(/4-byte buffer.*12 bytes/);
  });
});
