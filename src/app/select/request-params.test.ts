import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RequestParams } from './request-params.ts';

// The rule, spelled as simply as possible: the first source (URL, then body) holding any of the
// names, in the names' order, gives all its values as strings.
function referenceGetAll(query: Record<string, unknown>, body: Record<string, unknown>, names: string[]): string[] {
  for (const source of [query, body]) {
    for (const name of names) {
      const v = source[name];
      if (v !== undefined) return (Array.isArray(v) ? v : [v]).map(String);
    }
  }
  return [];
}

const NAMES = ['match[]', 'match', 'query', 'time'];
const value = fc.oneof(fc.string({ maxLength: 4 }), fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }), fc.integer());
const source = fc.dictionary(fc.constantFrom(...NAMES), value, { maxKeys: 4 }).map((o) => Object.assign(Object.create(null) as Record<string, unknown>, o));

describe('RequestParams', () => {
  it('prefers the URL over the body, the name over its alias, and the last value for get', () => {
    const p = new RequestParams({ match: 'u', time: ['1', '2'] }, { 'match[]': 'b', query: 'q', time: '9' });
    expect(p.getAll('match[]', 'match')).toEqual(['u']);
    expect(p.getAll('query')).toEqual(['q']);
    expect(p.get('time')).toBe('2');
    expect(p.get('step')).toBeUndefined();
    expect(p.getAll('step')).toEqual([]);
  });

  it('reads no values from what is not a record (a raw Buffer body, null)', () => {
    const p = new RequestParams(null, Buffer.from('query=up'));
    expect(p.get('query')).toBeUndefined();
    expect(p.getAll('query', 'match')).toEqual([]);
  });

  it('answers as the simple rule does, for any URL and body args', () => {
    fc.assert(
      fc.property(source, source, fc.constantFrom(...NAMES), fc.option(fc.constantFrom(...NAMES), { nil: undefined }), (query, body, name, alias) => {
        const p = new RequestParams(query, body);
        const names = alias === undefined ? [name] : [name, alias];
        const want = referenceGetAll(query, body, names);
        expect(p.getAll(name, alias)).toEqual(want);
        if (alias === undefined) expect(p.get(name)).toBe(want.length === 0 ? undefined : want[want.length - 1]);
      }),
      { numRuns: 2000 },
    );
  });
});
