import fc from 'fast-check';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { mergeQueryArgs, QueryError } from '../../lib/httpproxy/index.ts';
import { FormArgFilter } from './form-args.ts';

const NAMES = new Set(['extra_label', 'extra_filters[]', 'extra_filters']);

function filter(chunks: readonly string[], names: ReadonlySet<string> = NAMES): Promise<string> {
  return text(Readable.from(chunks.map((c) => Buffer.from(c, 'latin1'))).pipe(new FormArgFilter(names)));
}

describe('FormArgFilter', () => {
  it('drops forced args in any spelling and keeps the rest byte for byte', async () => {
    const f = async (body: string, want: string) => expect(await filter([body])).toBe(want);
    await f('', '');
    await f('query=up', 'query=up');
    await f('query=sum(x)&extra_label=a=b&start=1', 'query=sum(x)&start=1');
    await f('extra_label=a=b&query=up', 'query=up');
    await f('extra%5flabel=a&extra%5Ffilters%5B%5D=x&extra_filters=y&%65xtra_label=z&q=1', 'q=1');
    await f('extra_label&q=1&extra_label', 'q=1');
    await f('&&q=1&&&r=%20+&', 'q=1&r=%20+');
    await f('match%5B%5D=%7Ba%3D%22b%22%7D', 'match%5B%5D=%7Ba%3D%22b%22%7D');
    await f('=v&extra_label', '=v');
    // a "+" is a space: "extra+label" is another name
    await f('extra+label=x', 'extra+label=x');
  });

  it('fails the stream on a malformed escape in a name that could be a forced one', async () => {
    await expect(filter(['q=1&extra_la%zzbel=x'])).rejects.toBeInstanceOf(QueryError);
  });

  it('holds only the current name: a long name streams through unchecked', async () => {
    const long = `${'n'.repeat(100)}%zz=v`;
    expect(await filter([long.slice(0, 70), long.slice(70)])).toBe(long);
  });

  it('gives what mergeQueryArgs gives for the same text, however the body is chunked (fuzz)', async () => {
    const piece = fc.constantFrom('extra_label', 'extra%5Flabel', 'extra_filters[]', 'extra_filters%5b%5d', 'extra_filters', 'query', 'q', '=', '&', 'a=b', '%20', '+', '%41', 'x'.repeat(70), '');
    await fc.assert(fc.asyncProperty(fc.array(piece, { maxLength: 30 }).map((a) => a.join('')), fc.array(fc.nat(), { maxLength: 6 }), async (body, cuts) => {
      const at = [...new Set(cuts.map((c) => c % (body.length + 1)))].sort((a, b) => a - b);
      const chunks: string[] = [];
      let prev = 0;
      for (const c of at) {
        chunks.push(body.slice(prev, c));
        prev = c;
      }
      chunks.push(body.slice(prev));
      const want = mergeQueryArgs(body, { names: NAMES, encoded: '' });
      expect(await filter(chunks)).toBe(want);
    }), { numRuns: 1500 });
  });
});
