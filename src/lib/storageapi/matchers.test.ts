import { describe, expect, it } from 'vitest';
import type { LabelMatcher } from './api.ts';
import { MatcherError } from './errors.ts';
import { compileMatcher, literalPrefix } from './matchers.ts';

const m = (type: LabelMatcher['type'], value: string): LabelMatcher => ({ name: 'group', type, value });

describe('compileMatcher', () => {
  it('applies PromQL (RE2) regexp semantics, fully anchored', () => {
    const f = (type: LabelMatcher['type'], re: string, value: string, want: boolean) => expect(compileMatcher(m(type, re)).matches(value)).toBe(want);
    f('=~', '((?i)PRO).*', 'production', true);
    f('=~', '((?i)PRO).*', 'xproduction', false);
    f('=~', '(?i)prod', 'PROD', true);
    f('=~', 'a(?i)b', 'aB', true);
    f('=~', 'a(?i)b', 'AB', false);
    f('=~', '\\Qa.b\\E', 'a.b', true);
    f('=~', '\\Qa.b\\E', 'axb', false);
    f('=~', '[[:digit:]]+', '123', true);
    f('=~', 'ab', 'xaby', false);
    f('=~', 'a.c', 'a\nc', true);
    f('=~', 'a|b', 'b', true);
    f('!~', 'a|b', 'b', false);
    f('!~', 'a|b', 'c', true);
    f('=', 'x', 'x', true);
    f('!=', 'x', 'x', false);
  });

  it('knows whether the matcher selects series without the label', () => {
    const f = (type: LabelMatcher['type'], re: string, want: boolean) => expect(compileMatcher(m(type, re)).matchesEmpty).toBe(want);
    f('=', '', true);
    f('=', 'a', false);
    f('!=', 'a', true);
    f('=~', '.*', true);
    f('=~', '.+', false);
    f('!~', '.+', true);
  });

  it('lists literal values, value ranges and literal heads for index lookups', () => {
    const f = (type: LabelMatcher['type'], re: string, literals: string[] | undefined, ranges: { exact: string[]; prefixes: string[] } | undefined, prefix: string | undefined) => {
      const c = compileMatcher(m(type, re));
      expect([c.literals, c.ranges, c.prefix]).toEqual([literals, ranges, prefix]);
    };
    f('=', 'prod', ['prod'], undefined, undefined);
    f('=~', 'prod|dev', ['prod', 'dev'], undefined, undefined);
    f('=~', '(prod|dev)-[12]', ['prod-1', 'prod-2', 'dev-1', 'dev-2'], undefined, undefined);
    f('=~', 'eth.*', undefined, { exact: [], prefixes: ['eth'] }, undefined);
    f('=~', 'host-000[0-4].*', undefined, { exact: [], prefixes: ['host-0000', 'host-0001', 'host-0002', 'host-0003', 'host-0004'] }, undefined);
    f('=~', 'lo|eth.*', undefined, { exact: ['lo'], prefixes: ['eth'] }, undefined);
    f('=~', 'eth.+', undefined, undefined, 'eth');
    f('=~', '(?i)eth.*', undefined, undefined, undefined);
    f('!~', 'eth.*', undefined, undefined, undefined);
    f('!=', 'prod', undefined, undefined, undefined);
  });

  it('rejects invalid regexps with a MatcherError naming the label', () => {
    const f = (re: string) => expect(() => compileMatcher(m('=~', re))).toThrow(MatcherError);
    f('((');
    f('a**');
    f('(?P<n>a');
    expect(() => compileMatcher(m('!~', '[z-a]'))).toThrow(/invalid regexp "\[z-a\]" for label "group"/);
  });
});

describe('literalPrefix', () => {
  it('returns the literal text every match starts with', () => {
    const f = (re: string, want: string) => expect(literalPrefix(re)).toBe(want);
    f('eth.*', 'eth');
    f('eth0', 'eth0');
    f('abc?', 'ab');
    f('abc*d', 'ab');
    f('abc+', 'ab');
    f('ab{2}', 'a');
    f('a|b', '');
    f('(ab).*', '');
    f('(?i)ab', '');
    f('.*', '');
    f('', '');
  });
});
