import { describe, it, expect } from 'vitest';
import { canonicalLabels, metricName, type DuplicateLabels } from './row.ts';
import { isLineFailure } from './line-failure.ts';

const parsePairs = (s: string): { name: string; value: string }[] =>
  s === '' ? [] : s.split(',').map((p) => ({ name: p.split('=')[0]!, value: p.split('=')[1] ?? '' }));
const show = (ls: readonly { name: string; value: string }[]): string => ls.map((l) => `${l.name}=${l.value}`).join(',');

describe('canonicalLabels', () => {
  it('sorts, drops empty values and resolves duplicates', () => {
    const f = (input: string, dup: DuplicateLabels, want: string): void => {
      let got: string;
      try {
        got = show(canonicalLabels(parsePairs(input), dup));
      } catch (e) {
        if (!isLineFailure(e)) throw e;
        got = `error: ${e.reason}`;
      }
      expect(got).toBe(want);
    };
    f('', 'reject', '');
    f('a=1,b=2', 'reject', 'a=1,b=2');
    f('b=2,a=1', 'reject', 'a=1,b=2');
    f('__name__=m,Zone=z,a=1', 'reject', 'Zone=z,__name__=m,a=1');
    f('a=,b=2', 'reject', 'b=2');
    f('b=2,a=', 'reject', 'b=2');
    f('a=1,a=2', 'reject', 'error: duplicate label "a"');
    f('a=1,b=0,a=2', 'keepLast', 'a=2,b=0');
    f('a=1,a=', 'reject', 'a=1');
    f('=x', 'reject', 'error: empty label name');
  });
  it('finds the metric name', () => {
    expect(metricName(parsePairs('__name__=up,job=a'))).toBe('up');
    expect(metricName(parsePairs('job=a'))).toBe('');
  });
});
