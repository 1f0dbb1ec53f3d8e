import { describe, expect, it } from 'vitest';
import { TokenBucket } from './throttle.ts';

// A fake clock: delay() advances time instead of waiting, and records each wait.
function fakeClock() {
  let t = 1_000_000;
  const waits: number[] = [];
  return {
    now: () => t,
    delay: async (ms: number) => {
      waits.push(ms);
      t += ms;
    },
    advance: (ms: number) => {
      t += ms;
    },
    waits,
    elapsed: () => t - 1_000_000,
  };
}

describe('TokenBucket', () => {
  it('lets a burst through, then paces to the rate', async () => {
    const c = fakeClock();
    const b = new TokenBucket({ bytesPerSecond: 1000, now: c.now, delay: c.delay });
    await b.take(1000); // the initial burst
    expect(c.waits).toEqual([]);
    await b.take(500);
    await b.take(500);
    expect(c.waits).toEqual([500, 500]);
    expect(c.elapsed()).toBe(1000);
  });

  it('keeps the long-run rate for chunks larger than the burst', async () => {
    const c = fakeClock();
    const b = new TokenBucket({ bytesPerSecond: 100, now: c.now, delay: c.delay });
    for (let i = 0; i < 10; i++) await b.take(250);
    // 2500 bytes at 100 B/s with a 100-byte burst: 24 s
    expect(c.elapsed()).toBe(24_000);
  });

  it('refills while idle, up to the burst', async () => {
    const c = fakeClock();
    const b = new TokenBucket({ bytesPerSecond: 100, burstBytes: 200, now: c.now, delay: c.delay });
    await b.take(200);
    c.advance(60_000); // a long idle period refills only the burst
    await b.take(200);
    expect(c.waits).toEqual([]);
    await b.take(100);
    expect(c.waits).toEqual([1000]);
  });

  it('shares the rate between concurrent takers', async () => {
    const c = fakeClock();
    const waits: number[] = [];
    const b = new TokenBucket({ bytesPerSecond: 100, burstBytes: 0, now: c.now, delay: async (ms) => void waits.push(ms) });
    await Promise.all([b.take(100), b.take(100), b.take(100)]);
    // each later caller waits for the debt of those before it
    expect(waits).toEqual([1000, 2000, 3000]);
  });

  it('rejects when the signal aborts', async () => {
    const b = new TokenBucket({
      bytesPerSecond: 1,
      burstBytes: 0,
      now: () => 0,
      delay: async (_ms, signal) => signal?.throwIfAborted(),
    });
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    await expect(b.take(10, ac.signal)).rejects.toThrow('stop');
  });

  it('refuses a non-positive rate', () => {
    expect(() => new TokenBucket({ bytesPerSecond: 0, now: () => 0, delay: async () => {} })).toThrow(RangeError);
  });
});
