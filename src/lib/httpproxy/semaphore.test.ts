import { describe, expect, it } from 'vitest';
import { Semaphore } from './semaphore.ts';

describe('Semaphore', () => {
  it('grants up to capacity at once and queues the rest in FIFO order', async () => {
    const s = new Semaphore(2);
    expect(s.tryAcquire()).toBe(true);
    expect(s.tryAcquire()).toBe(true);
    expect(s.tryAcquire()).toBe(false);
    const order: string[] = [];
    const a = s.acquire(10_000).granted.then((ok) => order.push(`a:${ok}`));
    const b = s.acquire(10_000).granted.then((ok) => order.push(`b:${ok}`));
    expect(s.waiting).toBe(2);
    s.release();
    s.release();
    await Promise.all([a, b]);
    expect(order).toEqual(['a:true', 'b:true']);
    expect(s.current).toBe(2);
  });

  it('times out and cancels waiters without leaking slots', async () => {
    const s = new Semaphore(1);
    expect(s.tryAcquire()).toBe(true);
    expect(await s.acquire(0).granted).toBe(false);
    expect(await s.acquire(5).granted).toBe(false);
    const c = s.acquire(10_000);
    c.cancel();
    expect(await c.granted).toBe(false);
    expect(s.waiting).toBe(0);
    s.release();
    expect(s.current).toBe(0);
    expect(s.tryAcquire()).toBe(true);
  });

  it('follows capacity changes: a raise wakes waiters, a cut lets holders finish', async () => {
    const s = new Semaphore(1);
    s.tryAcquire();
    const w = s.acquire(10_000);
    s.setCapacity(2);
    expect(await w.granted).toBe(true);
    s.setCapacity(1);
    expect(s.tryAcquire()).toBe(false);
    s.release();
    expect(s.tryAcquire()).toBe(false);
    s.release();
    expect(s.tryAcquire()).toBe(true);
  });

  it('drops many timed-out waiters from its queue', async () => {
    const s = new Semaphore(1);
    s.tryAcquire();
    const all = Array.from({ length: 3000 }, () => s.acquire(1).granted);
    expect((await Promise.all(all)).every((ok) => !ok)).toBe(true);
    expect(s.waiting).toBe(0);
    s.release();
    expect(s.tryAcquire()).toBe(true);
  });
});
