import { describe, expect, it } from 'vitest';
import { RateLimiter } from './limiter.ts';
import { parseRateLimitConfig } from './ratelimit-config.ts';

const T1 = { accountID: 1, projectID: 0 };
const T2 = { accountID: 2, projectID: 0 };

function limiter(yaml: string, usage: Record<string, Record<string, number>>): RateLimiter {
  const l = new RateLimiter();
  l.setConfig(parseRateLimitConfig(yaml));
  l.setUsage(new Map(Object.entries(usage).map(([t, u]) => [t, new Map(Object.entries(u))])));
  return l;
}

describe('RateLimiter', () => {
  it('gates reads by queries limits and writes by the ingestion limits only', () => {
    const l = limiter('limits: [{type: queries, value: 10}, {type: rows_inserted, value: 100}]', { '1:0': { 'queries/minute': 10, 'rows_inserted/minute': 5 }, '2:0': { 'rows_inserted/minute': 100 } });
    expect(l.check(T1, 'read')).toEqual({ type: 'queries', resolution: 'minute', limit: 10, usage: 10 });
    expect(l.check(T1, 'write')).toBeUndefined();
    expect(l.check(T2, 'read')).toBeUndefined();
    expect(l.check(T2, 'write')).toEqual({ type: 'rows_inserted', resolution: 'minute', limit: 100, usage: 100 });
  });

  it('applies a global limit to each tenant\'s own usage unless the tenant has its own entry', () => {
    const l = limiter(`limits:
- {type: rows_inserted, value: 100}
- {type: rows_inserted, value: 1000, account_id: 1}
- {type: new_series, value: 5, resolution: hour}
`, { '1:0': { 'rows_inserted/minute': 500 }, '2:0': { 'rows_inserted/minute': 500 }, '3:0': { 'new_series/hour': 5 } });
    expect(l.check(T1, 'write')).toBeUndefined();
    expect(l.check(T2, 'write')?.limit).toBe(100);
    expect(l.check({ accountID: 3, projectID: 0 }, 'write')).toEqual({ type: 'new_series', resolution: 'hour', limit: 5, usage: 5 });
    expect(l.check({ accountID: 4, projectID: 0 }, 'write')).toBeUndefined();
  });

  it('shares the active series count between windows, and a limit of 0 blocks at once', () => {
    const l = limiter('limits: [{type: active_series, value: 50, resolution: hour}, {type: queries, value: 0, account_id: 9}]', { '1:0': { active_series: 50 } });
    expect(l.check(T1, 'write')?.type).toBe('active_series');
    expect(l.check({ accountID: 9, projectID: 0 }, 'read')?.limit).toBe(0);
  });

  it('follows new usage and new configs', () => {
    const l = limiter('limits: [{type: queries, value: 10}]', { '1:0': { 'queries/minute': 11 } });
    expect(l.check(T1, 'read')).toBeDefined();
    l.setUsage(new Map());
    expect(l.check(T1, 'read')).toBeUndefined();
    l.setUsage(new Map([['1:0', new Map([['queries/minute', 11]])]]));
    l.setConfig(parseRateLimitConfig('limits: []'));
    expect(l.check(T1, 'read')).toBeUndefined();
  });
});
