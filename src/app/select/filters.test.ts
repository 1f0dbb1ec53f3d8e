import { describe, expect, it } from 'vitest';
import { parse, print } from '../../lib/promql/index.ts';
import { applyExtraFilters, applyExtraFiltersToExpr, filtersToMatcherSets, parseExtraFilters, parseSelectorArg } from './filters.ts';
import { RequestParams } from './request-params.ts';

describe('parseSelectorArg', () => {
  it('turns selectors into OR-ed matcher sets including the metric name', () => {
    expect(parseSelectorArg('up{job="a"}', 'match[]')).toEqual([[{ name: '__name__', type: '=', value: 'up' }, { name: 'job', type: '=', value: 'a' }]]);
    expect(parseSelectorArg('{a="1" or b=~"x.*"}', 'match[]')).toEqual([[{ name: 'a', type: '=', value: '1' }], [{ name: 'b', type: '=~', value: 'x.*' }]]);
  });

  it('rejects non-selectors and selectors that match everything, naming the parameter', () => {
    const f = (text: string, want: RegExp) => expect(() => parseSelectorArg(text, 'match[]')).toThrow(want);
    f('rate(up[5m])', /invalid parameter "match\[\]": .* is not a series selector/);
    f('{a=""}', /invalid parameter "match\[\]": .*(at least one|non-empty)/);
    f('{a=~".*"}', /invalid parameter "match\[\]": .*(at least one|non-empty)/);
    f('up{', /invalid parameter "match\[\]"/);
    f('up offset 5m', /must not have offset/);
  });
});

describe('extra filters', () => {
  const params = new RequestParams({ extra_label: ['tenant=a', 'env=prod'], 'extra_filters[]': ['{team="x"}', '{team="y"}'] }, {});
  const f = parseExtraFilters(params);

  it('AND-s extra_label into every set and ORs extra_filters[] alternatives', () => {
    expect(applyExtraFilters([[{ name: '__name__', type: '=', value: 'up' }]], f)).toEqual([
      [{ name: '__name__', type: '=', value: 'up' }, { name: 'tenant', type: '=', value: 'a' }, { name: 'env', type: '=', value: 'prod' }, { name: 'team', type: '=', value: 'x' }],
      [{ name: '__name__', type: '=', value: 'up' }, { name: 'tenant', type: '=', value: 'a' }, { name: 'env', type: '=', value: 'prod' }, { name: 'team', type: '=', value: 'y' }],
    ]);
    expect(filtersToMatcherSets(f)).toHaveLength(2);
    expect(filtersToMatcherSets(parseExtraFilters(new RequestParams({}, {})))).toEqual([]);
  });

  it('rewrites every selector of a query', () => {
    const e = applyExtraFiltersToExpr(parse('sum(rate(a[5m])) / b'), parseExtraFilters(new RequestParams({ extra_label: 'tenant=t1' }, {})));
    expect(print(e)).toBe('sum(rate(a{tenant="t1"}[5m])) / b{tenant="t1"}');
  });

  it('lets URL args win over the same names in the body and rejects malformed extra_label', () => {
    const p = new RequestParams({ extra_label: 'tenant=url' }, { extra_label: 'tenant=body' });
    expect(parseExtraFilters(p).labels).toEqual([{ name: 'tenant', type: '=', value: 'url' }]);
    expect(() => parseExtraFilters(new RequestParams({ extra_label: 'novalue' }, {}))).toThrow(/extra_label/);
  });
});
