import { describe, expect, it } from 'vitest';
import { allowedMemoryBytes, MemoryBudget, systemMemoryBytes } from './budget.ts';

describe('allowedMemoryBytes', () => {
  it('uses bytes when set, else the percentage of system memory', () => {
    const f = (allowedBytes: number, allowedPercent: number, want: number) =>
      expect(allowedMemoryBytes({ allowedBytes, allowedPercent, systemBytes: 1000 })).toBe(want);
    f(0, 60, 600);
    f(256, 60, 256);
    f(0, 12.5, 125);
  });
});

describe('MemoryBudget', () => {
  it('hands out shares and records them', () => {
    const b = new MemoryBudget(1000);
    expect(b.share('index', 0.25)).toBe(250);
    expect(b.share('rollup', 0.1)).toBe(100);
    expect([...b.shares()]).toEqual([['index', 250], ['rollup', 100]]);
    expect(() => b.share('x', 0)).toThrow(/cache "x"/);
  });

  // Caches of JS objects share at most half of V8's heap limit, whatever the allowed memory.
  it('caps heap shares at half of the heap limit', () => {
    const f = (allowed: number, heapLimit: number, want: number) => {
      const b = new MemoryBudget(allowed, heapLimit);
      expect(b.heapShare('storage', 0.5)).toBe(want);
      expect(b.share('buffers', 0.5)).toBe(allowed / 2);
      expect(b.shares().get('storage')).toBe(want);
    };
    f(14_000, 4_000, 1_000);
    f(1_000, 4_000, 500);
    f(1_000, Number.POSITIVE_INFINITY, 500);
  });
});

describe('systemMemoryBytes', () => {
  it('respects a cgroup limit below RAM and ignores "max"', () => {
    expect(systemMemoryBytes((p) => (p.endsWith('memory.max') ? '1048576\n' : undefined))).toBe(1048576);
    expect(systemMemoryBytes(() => 'max')).toBeGreaterThan(1048576);
  });
});
