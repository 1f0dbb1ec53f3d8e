import { describe, expect, it } from 'vitest';
import { BufferPool } from './buffers.ts';

describe('BufferPool', () => {
  it('hands a buffer given back out again for a request it fits, the smallest that fits', () => {
    const p = new BufferPool({ maxBytes: 1 << 24 });
    const a = p.take(100_000);
    const b = p.take(300_000);
    expect(a.byteLength).toBeGreaterThanOrEqual(100_000);
    expect(a.byteLength).toBeLessThanOrEqual(100_000 * 1.125);
    p.give(b);
    p.give(a);
    expect(p.freeBytes).toBe(a.byteLength + b.byteLength);
    expect(p.take(90_000)).toBe(a);
    expect(p.take(90_000)).not.toBe(b); // b is more than twice the size: a new buffer
    expect(p.take(200_000)).toBe(b);
    expect(p.freeBytes).toBe(0);
  });

  it('keeps at most maxBytes and ignores detached buffers', () => {
    const p = new BufferPool({ maxBytes: 150_000 });
    const a = p.take(100_000);
    const b = p.take(100_000);
    p.give(a);
    p.give(b);
    expect(p.freeBytes).toBe(a.byteLength);
    const c = p.take(10_000);
    structuredClone(c, { transfer: [c] });
    expect(c.byteLength).toBe(0);
    p.give(c);
    expect(p.freeBytes).toBe(a.byteLength);
  });

  it('drops its free buffers after idleMs without a take', async () => {
    const p = new BufferPool({ maxBytes: 1 << 24, idleMs: 30 });
    p.give(p.take(10_000));
    expect(p.freeBytes).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 80));
    expect(p.freeBytes).toBe(0);
  });
});
