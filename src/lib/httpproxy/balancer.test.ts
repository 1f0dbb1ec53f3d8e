import { describe, expect, it } from 'vitest';
import { type Backend, Balancer } from './balancer.ts';

interface B extends Backend {
  readonly name: string;
  inFlight: number;
  brokenUntilMs: number;
}
const backends = (...load: number[]): B[] => load.map((inFlight, i) => ({ name: `b${i}`, inFlight, brokenUntilMs: 0 }));
const names = (bal: Balancer<B>, n: number, now = 0, exclude?: Set<B>) => Array.from({ length: n }, () => bal.pick(now, exclude)?.name ?? '-');

describe('Balancer least_loaded', () => {
  it('round-robins over idle backends and prefers the least loaded', () => {
    const f = (load: number[], want: string[]) => expect(names(new Balancer(backends(...load)), want.length)).toEqual(want);
    f([0, 0, 0], ['b0', 'b1', 'b2', 'b0']);
    f([5, 1, 3], ['b1', 'b1', 'b1']);
    f([2, 0, 2], ['b1', 'b1', 'b1']);
    f([1, 1], ['b0', 'b1', 'b0']);
  });

  it('skips backends broken until a later time, and tries one anyway when all are broken', () => {
    const list = backends(0, 0, 0);
    list[0]!.brokenUntilMs = 1000;
    list[1]!.brokenUntilMs = 1000;
    const bal = new Balancer(list);
    expect(names(bal, 3, 500)).toEqual(['b2', 'b2', 'b2']);
    expect(names(bal, 3, 1000)).toEqual(['b0', 'b1', 'b2']);
    list[2]!.brokenUntilMs = 5000;
    expect(names(bal, 1, 2000)).toEqual(['b0']);
    list[0]!.brokenUntilMs = 5000;
    list[1]!.brokenUntilMs = 5000;
    expect(bal.pick(2000)).toBeDefined();
  });

  it('never returns an excluded backend, and undefined once all were tried', () => {
    const list = backends(0, 0);
    const bal = new Balancer(list);
    expect(names(bal, 2, 0, new Set([list[0]!]))).toEqual(['b1', 'b1']);
    expect(bal.pick(0, new Set(list))).toBeUndefined();
    const single = new Balancer(backends(0));
    expect(single.pick(0, new Set(single.backends))).toBeUndefined();
  });
});

describe('Balancer first_available', () => {
  it('sends everything to the first healthy backend', () => {
    const list = backends(3, 0);
    const bal = new Balancer(list, 'first_available');
    expect(names(bal, 2)).toEqual(['b0', 'b0']);
    list[0]!.brokenUntilMs = 10;
    expect(names(bal, 2, 5)).toEqual(['b1', 'b1']);
  });

  it('refuses an empty list', () => {
    expect(() => new Balancer([])).toThrow(/empty backend list/);
  });
});
