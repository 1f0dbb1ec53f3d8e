import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isForwardedPath, splitLines } from './upstream.ts';

describe('upstream stream and path handling', () => {
  it('splitLines yields every line of a stream once, in order, however it is chunked', () => {
    const line = fc.string({ unit: fc.constantFrom('a', '{', '}', '"', ' ', 'é', '😀') }).filter((l) => l !== '');
    fc.assert(
      fc.property(fc.array(line, { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 10 }), (lines, cuts) => {
        const stream = lines.map((l) => `${l}\n`).join('');
        const points = [...new Set(cuts.map((c) => (stream.length === 0 ? 0 : c % stream.length)))].sort((a, b) => a - b);
        const chunks = [0, ...points, stream.length].slice(1).map((end, i, ends) => stream.slice(i === 0 ? 0 : ends[i - 1], end));
        const out: string[] = [];
        let rest = '';
        for (const chunk of chunks) {
          const r = splitLines(rest, chunk);
          out.push(...r.lines);
          rest = r.rest;
        }
        expect(out).toEqual(lines);
        expect(rest).toBe('');
      }),
    );
  });

  it('forwards exactly the strata.dev and apiextensions.k8s.io paths', () => {
    expect(isForwardedPath('/apis/strata.dev/v1beta1/namespaces/a/tsdbsingles')).toBe(true);
    expect(isForwardedPath('/apis/apiextensions.k8s.io/v1/customresourcedefinitions')).toBe(true);
    expect(isForwardedPath('/apis/strata.dev')).toBe(true);
    expect(isForwardedPath('/apis')).toBe(false);
    expect(isForwardedPath('/apis/apps/v1/statefulsets')).toBe(false);
    expect(isForwardedPath('/api/v1/namespaces/strata.dev/pods')).toBe(false);
    fc.assert(fc.property(fc.string(), (path) => typeof isForwardedPath(path) === 'boolean'));
  });
});
