import { describe, expect, it } from 'vitest';
import { parseScript, parseTime, type Command } from './script.ts';
import { expandItem, parseSeriesDesc } from './series-desc.ts';

describe('parseTime', () => {
  const f = (text: string, want: number): void => {
    expect(parseTime(text)).toBe(want);
  };
  it('reads durations and plain seconds', () => {
    f('50m', 3_000_000);
    f('10s53ms', 10_053);
    f('0', 0);
    f('1.5', 1500);
    f('-1m', -60_000);
  });
});

describe('expandItem', () => {
  const f = (tok: string, want: string): void => {
    expect(expandItem(tok).map((v) => (v.kind === 'value' ? String(v.v) : v.kind)).join(' ')).toBe(want);
  };
  it('expands the series notation', () => {
    f('1+2x3', '1 3 5 7');
    f('5-1x2', '5 4 3');
    f('7x2', '7 7 7');
    f('_', 'omitted');
    f('_x3', 'omitted omitted omitted');
    f('stale', 'stale');
    f('-Inf', '-Infinity');
    f('NaN', 'NaN');
    f('{{schema:0 sum:1 count:2}}x1', 'histogram histogram');
  });
});

describe('parseSeriesDesc', () => {
  it('parses metric, labels (quoted names too) and values', () => {
    expect(parseSeriesDesc('foo{a="b", "c.d"="e"} 1 _ 2')).toEqual({
      labels: [{ name: '__name__', value: 'foo' }, { name: 'a', value: 'b' }, { name: 'c.d', value: 'e' }],
      values: [{ kind: 'value', v: 1 }, { kind: 'omitted' }, { kind: 'value', v: 2 }],
    });
    expect(parseSeriesDesc('{} 3').labels).toEqual([]);
  });
});

describe('parseScript', () => {
  const f = (text: string, want: Partial<Command>[]): void => {
    const got = parseScript(text);
    expect(got.length).toBe(want.length);
    want.forEach((w, i) => expect(got[i]).toMatchObject(w));
  };

  it('parses load, clear and both eval forms with expectations', () => {
    f('load 5m\n  m{a="b"} 1+1x2\n\nclear\n', [{ type: 'load', intervalMs: 300_000 }, { type: 'clear' }]);
    f('eval instant at 1m sum(m)\n  expect ordered\n  {} 3\n', [{ type: 'eval', query: 'sum(m)', instant: { timeMs: 60_000 }, ordered: true }]);
    f('eval range from 0 to 2m step 1m m\n  m 1 2 3\n', [{ type: 'eval', range: { startMs: 0, endMs: 120_000, stepMs: 60_000 } }]);
    f('eval_fail instant at 0 foo(\n', [{ type: 'eval', fail: true }]);
    f('eval instant at 0 1\n  expect fail msg: something\n', [{ type: 'eval', fail: true }]);
    f('eval instant at 0 2\n  2\n', [{ type: 'eval', expectedScalar: 2 }]);
    f('eval instant at 0 "a"\n  expect string "a\\"b"\n', [{ type: 'eval', expectedString: 'a"b' }]);
    f('eval instant at 1m m[1m]\n  expect range vector from 10s to 1m step 10s\n  m 1 2\n', [{ type: 'eval', rangeVector: { startMs: 10_000, endMs: 60_000, stepMs: 10_000 } }]);
  });

  it('rejects malformed scripts with ScriptError', () => {
    for (const bad of ['bogus', 'load', 'eval foo', 'load 5m\n  m{a=~"b"} 1', 'load 5m\n  m{a="b" 1', 'load 5m\n  m 1zz']) {
      expect(() => parseScript(bad), bad).toThrow(expect.objectContaining({ name: 'ScriptError' }));
    }
  });
});
