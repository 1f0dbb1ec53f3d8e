import { describe, expect, it } from 'vitest';
import { QueryStats } from './query-stats.ts';

const A = { accountID: 0, projectID: 0 };
const B = { accountID: 1, projectID: 2 };

describe('QueryStats', () => {
  it('keeps the last lastQueriesCount finished queries at least minQueryDuration long, per tenant', () => {
    let now = 0;
    const s = new QueryStats({ lastQueriesCount: 3, minQueryDurationMs: 5, now: () => now });
    const run = (query: string, tenant = A, ms = 10, range = 60_000) => {
      const done = s.begin({ tenant, query, start: 0, end: range, step: 1000, remoteAddr: 'x' });
      now += ms;
      done();
      done(); // a second call changes nothing
    };
    run('fast', A, 4); // under minQueryDuration: not kept
    run('q1');
    run('q1');
    run('other', B);
    expect(s.totals(A, 60_000).map((t) => [t.query, t.count, t.sumDurationMs, t.timeRangeSeconds])).toEqual([['q1', 2, 20, 60]]);
    expect(s.totals(B, 60_000).map((t) => t.query)).toEqual(['other']);
    // The ring holds three: the first q1 falls out.
    run('q2');
    expect(s.totals(A, 60_000).map((t) => [t.query, t.count]).sort()).toEqual([['q1', 1], ['q2', 1]]);
    // maxLifetime: only queries finished within it.
    now += 30_000;
    expect(s.totals(A, 30_005).map((t) => t.query)).toEqual(['q2']);
  });

  it('lists running queries of a tenant, longest-running first, until they finish', () => {
    let now = 100;
    const s = new QueryStats({ lastQueriesCount: 0, minQueryDurationMs: 0, now: () => now });
    const d1 = s.begin({ tenant: A, query: 'a', start: 1, end: 2, step: 3, remoteAddr: '1.2.3.4:5' });
    now = 200;
    const d2 = s.begin({ tenant: A, query: 'b', start: 1, end: 2, step: 3, remoteAddr: '1.2.3.4:6' });
    s.begin({ tenant: B, query: 'c', start: 1, end: 2, step: 3, remoteAddr: '1.2.3.4:7' });
    expect(s.active(A).map((q) => [q.query, q.startedAt])).toEqual([['a', 100], ['b', 200]]);
    d1();
    d2();
    expect(s.active(A)).toEqual([]);
    expect(s.totals(A, 1e9)).toEqual([]); // lastQueriesCount 0 keeps none
  });

  it('rejects a negative count', () => {
    expect(() => new QueryStats({ lastQueriesCount: -1, minQueryDurationMs: 0, now: Date.now })).toThrow(/lastQueriesCount must be 0 or more/);
  });
});
