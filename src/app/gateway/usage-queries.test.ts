import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRateLimitConfig } from './ratelimit-config.ts';
import { parseExtraLabels, parseUsageAnswer, UsageParseError, usageQueries } from './usage-queries.ts';

describe('usageQueries', () => {
  it('asks once per quantity and window some limit needs, filtered by the extra labels', () => {
    const cfg = parseRateLimitConfig(`limits:
- {type: rows_inserted, value: 1}
- {type: rows_inserted, value: 2, account_id: 1}
- {type: rows_inserted, value: 3, resolution: hour}
- {type: new_series, value: 1}
- {type: queries, value: 1, resolution: hour}
- {type: active_series, value: 1}
- {type: active_series, value: 1, resolution: hour, account_id: 2}
`);
    expect(usageQueries(cfg, [])).toEqual([
      { key: 'active_series', expr: 'sum(tsdb_tenant_active_timeseries) by (accountID,projectID)' },
      { key: 'new_series/minute', expr: 'sum(increase(tsdb_tenant_timeseries_created_total[1m])) by (accountID,projectID)' },
      { key: 'queries/hour', expr: 'sum(increase(tsdb_tenant_select_requests_total[1h])) by (accountID,projectID)' },
      { key: 'rows_inserted/hour', expr: 'sum(increase(tsdb_tenant_inserted_rows_total[1h])) by (accountID,projectID)' },
      { key: 'rows_inserted/minute', expr: 'sum(increase(tsdb_tenant_inserted_rows_total[1m])) by (accountID,projectID)' },
    ]);
    const labels = parseExtraLabels(['cluster=prod', 'job=a"b']);
    expect(usageQueries(parseRateLimitConfig('limits: [{type: queries, value: 1}]'), labels)).toEqual([
      { key: 'queries/minute', expr: 'sum(increase(tsdb_tenant_select_requests_total{cluster="prod",job="a\\"b"}[1m])) by (accountID,projectID)' },
    ]);
  });

  it('rejects malformed -ratelimit.extraLabels', () => {
    expect(() => parseExtraLabels(['cluster'])).toThrow(/must look like name=value/);
    expect(() => parseExtraLabels(['a-b=c'])).toThrow(/"a-b=c"/);
    expect(parseExtraLabels(['a=b=c', 'e='])).toEqual([{ name: 'a', value: 'b=c' }, { name: 'e', value: '' }]);
  });
});

describe('parseUsageAnswer', () => {
  it('reads usage per tenant from an instant vector', () => {
    const answer = (result: unknown[]) => ({ status: 'success', data: { resultType: 'vector', result } });
    const f = (result: unknown[], want: Record<string, number>) => expect(Object.fromEntries(parseUsageAnswer(answer(result)))).toEqual(want);
    f([], {});
    f([{ metric: { accountID: '1', projectID: '0' }, value: [1, '12.5'] }, { metric: { accountID: '2' }, value: [1, '3'] }], { '1:0': 12.5, '2:0': 3 });
    // series of no tenant are skipped
    f([{ metric: {}, value: [1, '5'] }, { metric: { accountID: 'x' }, value: [1, '5'] }, { metric: { accountID: '01' }, value: [1, '5'] },
      { metric: { accountID: '4294967296' }, value: [1, '5'] }], {});
  });

  it('rejects answers that are not successful instant vectors', () => {
    const f = (body: unknown) => expect(() => parseUsageAnswer(body)).toThrow(UsageParseError);
    f(null);
    f('x');
    f({ status: 'error', error: 'boom' });
    f({ status: 'success', data: { resultType: 'matrix', result: [] } });
    f({ status: 'success', data: { resultType: 'vector', result: [{ metric: { accountID: '1' }, value: [1, 'x'] }] } });
  });

  it('returns a map or throws UsageParseError for any JSON (fuzz)', () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => {
      try {
        parseUsageAnswer(v);
      } catch (err) {
        expect(err).toBeInstanceOf(UsageParseError);
      }
    }));
  });
});
