import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ValueSets, valueSets } from './literals.ts';
import { compileAnchored } from './regexp.ts';

const inSets = (s: ValueSets, v: string): boolean => s.exact.includes(v) || s.prefixes.some((p) => v.startsWith(p));

describe('valueSets', () => {
  it('lists the literal values and prefixes of finite patterns', () => {
    const f = (re: string, exact: string[], prefixes: string[]) => expect(valueSets(re)).toEqual({ exact, prefixes });
    f('host-000[0-4].*', [], ['host-0000', 'host-0001', 'host-0002', 'host-0003', 'host-0004']);
    f('eth.*', [], ['eth']);
    f('prod|dev', ['prod', 'dev'], []);
    f('(api|web)-[12]', ['api-1', 'api-2', 'web-1', 'web-2'], []);
    f('a.*|ab|b', ['b'], ['a']);
    f('(?:a|b.*)c?', ['ac', 'a'], ['b']);
    f('ab?', ['ab', 'a'], []);
    f('(a.*)?', [''], ['a']);
    f('x\\.y', ['x.y'], []);
    f('\\d', [...'0123456789'], []);
    f('[-a_]', ['-', 'a', '_'], []);
    f('', [''], []);
    f('.*', [], ['']);
  });

  it('gives up on what it does not expand exactly', () => {
    for (const re of ['(?i)eth.*', 'a.*b', '.+', 'a+', 'a*', 'a{2}', 'a.', '[^a]', '[a-Z]', '[[:digit:]]', '^a', 'a$', 'é', '\\w', '.*?', 'a??', '(?P<n>a)', '\\Qa\\E', '[a-c-e]']) {
      expect(valueSets(re), re).toBeUndefined();
    }
    expect(valueSets('[0-9][0-9][0-9]', 256)).toBeUndefined();
    expect(valueSets('[0-9][0-9]', 100)?.exact).toHaveLength(100);
  });

  // The property the index relies on: whenever valueSets answers, a value is in its sets exactly
  // when the compiled regexp (the reference semantics) matches it.
  it('agrees with the compiled regexp on random patterns and values', () => {
    const PIECES = ['a', 'b', '0', '1', '-', '.', '.*', '.+', '?', '*', '|', '(', ')', '(?:', '(?i)', '[ab]', '[0-1]', '[-a]', '[a-]', '\\.', '\\-', '\\d', '\\w', '^', '$', '{1}', 'ab', '_'];
    const pattern = fc.array(fc.constantFrom(...PIECES), { maxLength: 10 }).map((a) => a.join(''));
    const value = fc.array(fc.constantFrom('a', 'b', '0', '1', '-', '.', '_', 'A', '\n', 'é'), { maxLength: 6 }).map((a) => a.join(''));
    let answered = 0;
    fc.assert(fc.property(pattern, fc.array(value, { minLength: 1, maxLength: 30 }), (re, values) => {
      let rx: RegExp;
      try {
        rx = compileAnchored(re);
      } catch {
        return; // not a valid pattern: never analysed by the matchers
      }
      const s = valueSets(re);
      if (s === undefined) return;
      answered++;
      // Values built from the sets must match too (random values rarely hit long literals).
      const probes = [...values, ...s.exact, ...s.prefixes, ...s.prefixes.map((p) => p + values[0]!)];
      for (const v of probes) expect(inSets(s, v), `${JSON.stringify(re)} on ${JSON.stringify(v)}`).toBe(rx.test(v));
    }), { numRuns: 5000 });
    expect(answered).toBeGreaterThan(500);
  });
});
