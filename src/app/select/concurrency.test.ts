import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter, QueueTimeoutError } from './concurrency.ts';

describe('ConcurrencyLimiter', () => {
  it('admits up to the limit, queues the rest in order and hands slots over on release', async () => {
    const l = new ConcurrencyLimiter(2);
    const never = new AbortController().signal;
    const r1 = await l.acquire(1000, never);
    const r2 = await l.acquire(1000, never);
    const order: number[] = [];
    const p3 = l.acquire(1000, never).then((r) => (order.push(3), r));
    const p4 = l.acquire(1000, never).then((r) => (order.push(4), r));
    expect(l.waiting).toBe(2);
    r1();
    r1(); // releasing twice frees one slot only
    (await p3)();
    r2();
    (await p4)();
    expect(order).toEqual([3, 4]);
    expect(l.active).toBe(0);
  });

  it('fails a waiter after the queue duration and removes aborted waiters', async () => {
    const l = new ConcurrencyLimiter(1);
    const release = await l.acquire(10, new AbortController().signal);
    await expect(l.acquire(20, new AbortController().signal)).rejects.toBeInstanceOf(QueueTimeoutError);
    const ac = new AbortController();
    const p = l.acquire(5000, ac.signal);
    ac.abort(new Error('client went away'));
    await expect(p).rejects.toThrow('client went away');
    expect(l.waiting).toBe(0);
    release();
    expect(l.active).toBe(0);
  });
});
