import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { formatFloat, parseFloatText, parseIntRange } from './float.ts';
import { isLineFailure } from './line-failure.ts';

const reason = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (isLineFailure(e)) return e.reason;
    throw e;
  }
  return 'no failure';
};

describe('parseFloatText', () => {
  it('parses what Go ParseFloat accepts from metrics clients', () => {
    const f = (s: string, want: number): void => {
      expect(Object.is(parseFloatText(s), want)).toBe(true);
    };
    f('0', 0);
    f('-0', -0);
    f('+0.0', 0);
    f('1', 1);
    f('-12.5', -12.5);
    f('.5', 0.5);
    f('5.', 5);
    f('1e3', 1000);
    f('1E+3', 1000);
    f('2.5e-3', 0.0025);
    f('0.1', 0.1);
    f('0.30000000000000004', 0.30000000000000004);
    f('9007199254740993', 9007199254740992);
    f('123456789012345678901234567890', 1.2345678901234568e29);
    f('1e400', Infinity);
    f('1e-400', 0);
    f('000123', 123);
    f('Inf', Infinity);
    f('+inf', Infinity);
    f('-Infinity', -Infinity);
    f('INF', Infinity);
  });
  it('parses NaN in any case', () => {
    for (const s of ['NaN', 'nan', 'NAN']) expect(Number.isNaN(parseFloatText(s))).toBe(true);
  });
  it('rejects what is not a plain decimal', () => {
    const f = (s: string, want: string): void => {
      expect(reason(() => parseFloatText(s))).toBe(want);
    };
    f('', 'cannot parse number ""');
    f('-', 'cannot parse number "-"');
    f('.', 'cannot parse number "."');
    f('0x10', 'cannot parse number "0x10"');
    f('1_000', 'cannot parse number "1_000"');
    f(' 1', 'cannot parse number " 1"');
    f('1 ', 'cannot parse number "1 "');
    f('1e', 'cannot parse number "1e": missing exponent digits');
    f('e5', 'cannot parse number "e5"');
    f('1.2.3', 'cannot parse number "1.2.3"');
    f('Infinityy', 'cannot parse number "Infinityy"');
    f('--1', 'cannot parse number "--1"');
  });
  it('agrees with Number() on every decimal rendering of a double', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), fc.constantFrom('g', 'e', 'f'), (v, style) => {
        const s = style === 'e' ? v.toExponential() : style === 'f' && Math.abs(v) < 1e21 ? v.toFixed(10) : String(v);
        if (!Number.isFinite(v)) return;
        expect(Object.is(parseFloatText(s), Number(s))).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('parseIntRange', () => {
  it('parses safe integers and rejects the rest', () => {
    const f = (s: string, want: number | string): void => {
      if (typeof want === 'number') expect(parseIntRange(s, 0, s.length, 'timestamp')).toBe(want);
      else expect(reason(() => parseIntRange(s, 0, s.length, 'timestamp'))).toBe(want);
    };
    f('0', 0);
    f('-17', -17);
    f('+17', 17);
    f('9007199254740991', 9007199254740991);
    f('9007199254740993', 'timestamp "9007199254740993" is out of range');
    f('', 'cannot parse timestamp ""');
    f('-', 'cannot parse timestamp "-"');
    f('1.5', 'cannot parse timestamp "1.5"');
    f('1e3', 'cannot parse timestamp "1e3"');
  });
});

describe('formatFloat', () => {
  it('spells special values the Prometheus way', () => {
    const f = (v: number, want: string): void => {
      expect(formatFloat(v)).toBe(want);
    };
    f(NaN, 'NaN');
    f(Infinity, '+Inf');
    f(-Infinity, '-Inf');
    f(-0, '-0');
    f(0, '0');
    f(0.1, '0.1');
    f(1e21, '1e+21');
    f(5e-324, '5e-324');
  });
  it('round-trips every double exactly', () => {
    fc.assert(
      fc.property(fc.double(), (v) => {
        const back = parseFloatText(formatFloat(v));
        expect(Object.is(back, v) || (Number.isNaN(v) && Number.isNaN(back))).toBe(true);
      }),
      { numRuns: 10000 },
    );
  });
});
