import { describe, expect, it } from 'vitest';
import { exposeGc, type GcOptions, YoungGarbage } from './young-garbage.ts';

describe('YoungGarbage', () => {
  it('collects the young generation once every everyBytes of bodies', () => {
    const calls: GcOptions[] = [];
    const y = new YoungGarbage((o) => void calls.push(o), 100);
    const f = (bytes: number, wantCalls: number) => {
      y.note(bytes);
      expect(calls.length).toBe(wantCalls);
    };
    // below the threshold nothing happens; crossing it collects once and starts counting again
    f(60, 0);
    f(30, 0);
    f(10, 1);
    f(0, 1);
    f(-5, 1);
    f(250, 2);
    f(99, 2);
    f(1, 3);
    expect(calls[0]).toEqual({ type: 'minor', execution: 'sync' });
    expect(y.collections).toBe(3);
  });

  it('refuses a threshold that is not positive', () => {
    expect(() => new YoungGarbage(() => {}, 0)).toThrow(/must be positive/);
  });
});

describe('exposeGc', () => {
  it('gives a working gc() without the command-line flag', () => {
    const gc = exposeGc();
    expect(typeof gc).toBe('function');
    gc!({ type: 'minor', execution: 'sync' });
  });
});
