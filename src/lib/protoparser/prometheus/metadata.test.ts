import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecentLines, type MetadataUpdate } from '../common/metadata.ts';
import { MetadataCapture, parseMetadataLine } from './metadata.ts';
import { parse } from './parse.ts';

describe('parseMetadataLine', () => {
  it('reads HELP, TYPE and UNIT lines', () => {
    const f = (line: string, want: MetadataUpdate | undefined) => expect(parseMetadataLine(line, 0, line.length)).toEqual(want);
    f('# HELP http_requests_total The total number of HTTP requests.', { metric: 'http_requests_total', help: 'The total number of HTTP requests.' });
    f('# TYPE http_requests_total counter', { metric: 'http_requests_total', type: 'counter' });
    f('# UNIT request_duration_seconds seconds', { metric: 'request_duration_seconds', unit: 'seconds' });
    // escapes in help text: \\ and \n; others are kept as written
    f('# HELP m a \\\\ b\\nc \\t', { metric: 'm', help: 'a \\ b\nc \\t' });
    // blanks between the fields, trailing blanks after a type or unit
    f('#\tTYPE \t m  gauge  ', { metric: 'm', type: 'gauge' });
    // untyped is Prometheus' unknown; OpenMetrics types
    f('# TYPE m untyped', { metric: 'm', type: 'unknown' });
    f('# TYPE m GaugeHistogram', { metric: 'm', type: 'gaugehistogram' });
    f('# TYPE m stateset', { metric: 'm', type: 'stateset' });
    // quoted UTF-8 names (Prometheus 3)
    f('# HELP "my.metric \\"x\\"" Help.', { metric: 'my.metric "x"', help: 'Help.' });
    // empty help
    f('# HELP m', { metric: 'm', help: '' });
    // not metadata: other comments, unknown types, missing names, glued keywords
    f('# just a comment', undefined);
    f('# TYPE m nonsense', undefined);
    f('# TYPE', undefined);
    f('# HELP ', undefined);
    f('#HELP m x', undefined);
    f('# HELPm x', undefined);
    f('# help m x', undefined);
    f('# HELP "unterminated x', undefined);
    f('# HELP "a"b x', undefined);
    f('# EOF', undefined);
  });

  it('never throws, on any comment line', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom('#', ' ', '\t', 'H', 'E', 'L', 'P', 'T', 'Y', 'U', 'N', 'I', '"', '\\', 'n', 'x', 'ü') }), (rest) => {
      const line = `#${rest}`;
      const u = parseMetadataLine(line, 0, line.length);
      if (u !== undefined) expect(u.metric).not.toBe('');
    }), { numRuns: 2000 });
  });
});

describe('parse with a MetadataCapture', () => {
  it('hands every metadata line to the sink and still yields the samples', () => {
    const got: MetadataUpdate[] = [];
    const r = parse('# HELP up Up.\n# TYPE up gauge\nup 1\n# other\n  # UNIT up seconds\r\nup 2\n', { now: () => 5, metadata: new MetadataCapture((u) => got.push(u)) });
    expect(r.rows.map((x) => x.value)).toEqual([1, 2]);
    expect(got).toEqual([{ metric: 'up', help: 'Up.' }, { metric: 'up', type: 'gauge' }, { metric: 'up', unit: 'seconds' }]);
  });
});

describe('MetadataCapture with RecentLines', () => {
  it('skips a line handed on within the window, from text and from bytes alike', () => {
    const got: MetadataUpdate[] = [];
    const c = new MetadataCapture((u) => got.push(u), new RecentLines(60_000));
    const f = (line: string, now: number, viaBytes: boolean) => {
      if (viaBytes) c.bytes(Buffer.from(`x\n${line}\n`), 2, 2 + Buffer.byteLength(line), now);
      else c.text(`x\n${line}`, 2, 2 + line.length, now);
    };
    for (const viaBytes of [false, true]) {
      got.length = 0;
      const t = viaBytes ? 1_000_000 : 0;
      f('# HELP up Up.', t, viaBytes);
      f('# HELP up Up.', t + 59_999, viaBytes); // the same line again within the window: skipped
      f('# HELP up Changed.', t + 59_999, viaBytes); // a changed line: taken at once
      f('# a comment', t + 1, viaBytes); // never metadata
      f('# HELP up Up.', t + 60_000, viaBytes); // the window passed
      expect(got.map((u) => u.help)).toEqual(['Up.', 'Changed.', 'Up.']);
    }
  });

  it('forgets every line once maxEntries were seen', () => {
    const r = new RecentLines(60_000, 2);
    expect([r.fresh(1, 0), r.fresh(2, 0), r.fresh(1, 1)]).toEqual([true, true, false]);
    expect(r.fresh(3, 2)).toBe(true);
    expect(r.fresh(1, 3)).toBe(true);
  });
});
