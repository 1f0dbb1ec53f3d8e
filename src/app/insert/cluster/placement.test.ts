import { describe, expect, it } from 'vitest';
import { type Labels } from '../../../lib/storageapi/index.ts';
import { Placement, seriesHash } from './placement.ts';

const T0 = { accountID: 0, projectID: 0 };
const series = (i: number): Labels => [{ name: '__name__', value: 'm' }, { name: 'instance', value: `host-${i}` }, { name: 'job', value: 'node' }];
const nodes = (n: number) => Array.from({ length: n }, (_, i) => `storage-${i}:8400`);

function rankOf(p: Placement, hash: number): number[] {
  const out = new Uint8Array(p.size);
  p.rank(hash, out);
  return [...out];
}

describe('seriesHash', () => {
  it('is stable: the same numbers in every process and version (the cluster\'s data layout depends on them)', () => {
    const f = (tenant: typeof T0, labels: Labels, want: number) => expect(seriesHash(tenant, labels)).toBe(want);
    f(T0, [], 0x18b6b1bd);
    f(T0, [{ name: '__name__', value: 'up' }, { name: 'job', value: 'node' }], 0x90665da3);
    f({ accountID: 7, projectID: 3 }, [{ name: '__name__', value: 'température' }], 0xbdb20a0c);
    expect(rankOf(new Placement(['s1:8400', 's2:8400', 's3:8400']), 0x90665da3)).toEqual([1, 0, 2]);
  });

  it('tells tenants, names, values and label boundaries apart', () => {
    const h = (t: typeof T0, o: Record<string, string>) => seriesHash(t, Object.entries(o).map(([name, value]) => ({ name, value })));
    const all = [
      h(T0, { a: 'bc' }), h(T0, { ab: 'c' }), h(T0, { a: 'b', c: '' }), h({ accountID: 1, projectID: 0 }, { a: 'bc' }),
      h({ accountID: 0, projectID: 1 }, { a: 'bc' }), h(T0, { a: 'bd' }), h(T0, {}),
    ];
    expect(new Set(all).size).toBe(all.length);
  });
});

describe('Placement', () => {
  it('ranks every node exactly once, so replicas are distinct nodes', () => {
    const p = new Placement(nodes(5));
    for (let i = 0; i < 1000; i++) expect(rankOf(p, seriesHash(T0, series(i))).sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('balances series over the nodes, for the first copy and for the second', () => {
    for (const n of [2, 3, 5, 8]) {
      const p = new Placement(nodes(n));
      const first = new Array<number>(n).fill(0);
      const second = new Array<number>(n).fill(0);
      const total = 40_000;
      for (let i = 0; i < total; i++) {
        const r = rankOf(p, seriesHash(T0, series(i)));
        first[r[0]!]!++;
        second[r[1]!]!++;
      }
      for (const c of [...first, ...second]) expect(Math.abs(c - total / n) / (total / n)).toBeLessThan(0.05);
    }
  });

  it('spreads the series of a node out of rotation evenly over the others', () => {
    const p = new Placement(nodes(4));
    const next = new Array<number>(4).fill(0);
    for (let i = 0; i < 40_000; i++) {
      const r = rankOf(p, seriesHash(T0, series(i)));
      if (r[0] === 0) next[r[1]!]!++;
    }
    expect(next[0]).toBe(0);
    for (const c of next.slice(1)) expect(Math.abs(c - 10_000 / 3) / (10_000 / 3)).toBeLessThan(0.08);
  });

  it('does not depend on the order of -storageNode, and a new node takes series only for itself', () => {
    const a = new Placement(['x:1', 'y:1', 'z:1']);
    const b = new Placement(['z:1', 'x:1', 'y:1']);
    const c = new Placement(['x:1', 'y:1', 'z:1', 'w:1']);
    const nameA = ['x:1', 'y:1', 'z:1'];
    const nameB = ['z:1', 'x:1', 'y:1'];
    const nameC = ['x:1', 'y:1', 'z:1', 'w:1'];
    let moved = 0;
    const bad: string[] = [];
    const total = 20_000;
    for (let i = 0; i < total; i++) {
      const h = seriesHash(T0, series(i));
      const ra = rankOf(a, h).map((k) => nameA[k]).join();
      if (rankOf(b, h).map((k) => nameB[k]).join() !== ra) bad.push(`order: ${i}`);
      const rc = rankOf(c, h).map((k) => nameC[k]);
      // Without w, the ranking over the other nodes is unchanged.
      if (rc.filter((x) => x !== 'w:1').join() !== ra) bad.push(`new node: ${i}`);
      if (rc[0] === 'w:1') moved++;
    }
    expect(bad).toEqual([]);
    expect(Math.abs(moved - total / 4) / (total / 4)).toBeLessThan(0.06);
  });
});
