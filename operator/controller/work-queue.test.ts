import { describe, expect, it } from 'vitest';
import { ManualClock } from '../runtime/manual-clock.ts';
import { WorkQueue } from './work-queue.ts';

const newQueue = () => {
  const clock = new ManualClock();
  return { clock, q: new WorkQueue(clock, { baseMs: 10, maxMs: 80 }) };
};

describe('WorkQueue', () => {
  it('de-duplicates keys that wait', async () => {
    const { q } = newQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
  });

  it('re-queues a key added while it is processed, only after done()', async () => {
    const { q } = newQueue();
    q.add('a');
    const key = await q.get();
    q.add('a');
    expect(q.length).toBe(0);
    q.done(key!);
    expect(q.length).toBe(1);
  });

  it('hands keys to waiting workers', async () => {
    const { q } = newQueue();
    const pending = q.get();
    q.add('x');
    expect(await pending).toBe('x');
  });

  it('backs off exponentially per key up to the maximum and forgets on success', () => {
    const { q } = newQueue();
    const f = (want: number) => expect(q.addRateLimited('k')).toBe(want);
    f(10);
    f(20);
    f(40);
    f(80);
    f(80);
    q.forget('k');
    f(10);
  });

  it('delays addAfter and keeps the earliest timer', () => {
    const { q, clock } = newQueue();
    q.addAfter('k', 50);
    q.addAfter('k', 100);
    clock.advance(49);
    expect(q.length).toBe(0);
    clock.advance(1);
    expect(q.length).toBe(1);
    clock.advance(100);
    expect(q.length).toBe(1);
  });

  it('releases waiting workers on shutdown', async () => {
    const { q } = newQueue();
    const pending = q.get();
    q.shutDown();
    expect(await pending).toBeUndefined();
    q.add('late');
    expect(q.length).toBe(0);
  });
});
