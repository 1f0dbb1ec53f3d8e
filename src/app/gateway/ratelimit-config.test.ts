import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRateLimitConfig, RateLimitConfigError } from './ratelimit-config.ts';

describe('parseRateLimitConfig', () => {
  it('parses global and tenant entries of every type and window', () => {
    const f = (yaml: string, want: unknown[]) => expect(parseRateLimitConfig(yaml).limits).toEqual(want);
    f('', []);
    f('limits: []', []);
    f(`
limits:
  - type: queries
    value: 1000
    resolution: minute
  - type: queries
    value: 30000
    resolution: hour
  - type: rows_inserted
    value: 100000
    resolution: hour
    account_id: 1
    project_id: 2
  - {type: active_series, value: 0, account_id: 5}
  - {type: new_series, value: 7}
`, [
      { type: 'queries', value: 1000, resolution: 'minute', tenant: undefined },
      { type: 'queries', value: 30000, resolution: 'hour', tenant: undefined },
      { type: 'rows_inserted', value: 100000, resolution: 'hour', tenant: { accountID: 1, projectID: 2 } },
      { type: 'active_series', value: 0, resolution: 'minute', tenant: { accountID: 5, projectID: 0 } },
      { type: 'new_series', value: 7, resolution: 'minute', tenant: undefined },
    ]);
  });

  it('parses what the operator renders', () => {
    const yaml = 'limits:\n  - type: queries\n    value: 100\n    resolution: minute\n  - type: rows_inserted\n    value: 100000\n    resolution: hour\n    account_id: 1\n    project_id: 0\n';
    expect(parseRateLimitConfig(yaml).limits).toHaveLength(2);
  });

  it('rejects invalid configs with a message naming the entry', () => {
    const f = (yaml: string, re: RegExp) => {
      expect(() => parseRateLimitConfig(yaml)).toThrow(RateLimitConfigError);
      expect(() => parseRateLimitConfig(yaml)).toThrow(re);
    };
    f('limits: [', /cannot parse rate limit config YAML/);
    f('- a', /must be a mapping/);
    f('limit: []', /unknown key "limit"/);
    f('limits: {type: queries}', /"limits" must be a list/);
    f('limits: [5]', /limits\[0\] must be a mapping/);
    f('limits: [{type: requests, value: 1}]', /limits\[0\]: "type" must be one of queries, active_series, new_series, rows_inserted/);
    f('limits: [{type: queries}]', /"value" must be a non-negative integer/);
    f('limits: [{type: queries, value: -1}]', /"value"/);
    f('limits: [{type: queries, value: 1.5}]', /"value"/);
    f('limits: [{type: queries, value: "10"}]', /"value"/);
    f('limits: [{type: queries, value: 1, resolution: day}]', /"resolution" must be minute or hour/);
    f('limits: [{type: queries, value: 1, project_id: 1}]', /"project_id" needs "account_id"/);
    f('limits: [{type: queries, value: 1, account_id: "1"}]', /"account_id" must be an integer/);
    f('limits: [{type: queries, value: 1, account_id: 4294967296}]', /"account_id"/);
    f('limits: [{type: queries, value: 1, tenant: 1}]', /unknown key "tenant" in limits\[0\]/);
    f('limits: [{type: queries, value: 1}, {type: queries, value: 2, resolution: minute}]', /limits\[1\] repeats an earlier minute "queries" limit for all tenants/);
    f('limits: [{type: queries, value: 1, account_id: 3}, {type: queries, value: 2, account_id: 3, project_id: 0}]', /for tenant 3:0/);
  });

  it('returns a config or throws RateLimitConfigError, never anything else (fuzz)', () => {
    const fragments = fc.constantFrom('limits:', '\n- ', '\n  ', 'type: queries', 'type: rows_inserted', 'value: 5', 'value: -1', 'resolution: hour', 'resolution: x',
      'account_id: 1', 'project_id: 2', '{', '}', '[', ']', ':', '"', '&a', '*a', '!!binary', '0x1', ' ', ',', 'null', '~');
    fc.assert(fc.property(fc.array(fragments, { maxLength: 25 }).map((a) => a.join('')), (text) => {
      try {
        const cfg = parseRateLimitConfig(text);
        for (const l of cfg.limits) expect(l.value).toBeGreaterThanOrEqual(0);
      } catch (err) {
        expect(err).toBeInstanceOf(RateLimitConfigError);
      }
    }), { numRuns: 2000 });
  });
});
