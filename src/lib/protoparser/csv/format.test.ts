import { describe, it, expect } from 'vitest';
import { parseFormat, parseExportFormat, importFormatFor } from './format.ts';

describe('csv parseFormat', () => {
  it('describes columns', () => {
    const f = (format: string, want: string): void => {
      const got = parseFormat(format);
      const cols = got.columns.map((c) => (c === undefined ? '-' : c.kind === 'time' ? `time:${c.format}` : `${c.kind}:${c.name}`));
      expect(`${cols.join(' ')}${got.nameFromColumn ? ' (name from column)' : ''}`).toBe(want);
    };
    f('2:metric:ask,3:metric:bid,1:label:ticker,4:label:market', 'label:ticker metric:ask metric:bid label:market');
    f('1:time:unix_s,3:metric:v', 'time:unix_s - metric:v');
    f('1:label:__name__,2:metric:value,3:time:rfc3339', 'label:__name__ metric:value time:rfc3339 (name from column)');
    f('1:time:custom:2006-01-02 15:04:05,2:metric:x', 'time:custom:2006-01-02 15:04:05 metric:x');
    f(' 1:metric:a ', 'metric:a');
  });

  it('rejects bad formats with the entry at fault', () => {
    const f = (format: string, want: string): void => {
      expect(() => parseFormat(format)).toThrow(`invalid "format" argument: ${want}`);
    };
    f('', 'must not be empty; want <column>:<type>:<name>,…');
    f('1:label:x', 'needs at least one metric column');
    f('a:metric:x', 'entry #1 "a:metric:x" must look like <column>:<type>:<name>');
    f('1:metric', 'entry #1 "1:metric" must look like <column>:<type>:<name>');
    f('0:metric:x', 'entry #1 "0:metric:x": column must be between 1 and 65536');
    f('70000:metric:x', 'entry #1 "70000:metric:x": column must be between 1 and 65536');
    f('1:metric:x,1:label:y', 'entry #2 "1:label:y": column 1 is already described');
    f('1:metric:', 'entry #1 "1:metric:": missing name');
    f('1:metric:x,2:time:', 'entry #2 "2:time:": missing time format');
    f('1:metric:x,2:label:a,3:label:a', 'entry #3 "3:label:a": label "a" is already described');
    f('1:metric:x,2:time:unix_s,3:time:unix_ms', 'entry #3 "3:time:unix_ms": only one time column is allowed');
    f('1:metric:x,2:time:unix_us', 'entry #2 "2:time:unix_us": unknown time format "unix_us"; supported: unix_s, unix_ms, unix_ns, rfc3339, custom:<layout>');
    f('1:metric:x,2:time:custom:nothing', 'entry #2 "2:time:custom:nothing": layout "nothing" has no date or time element');
    f('1:value:x', 'entry #1 "1:value:x": unknown type "value"; want metric, label or time');
    f('1:label:__name__,2:metric:a,3:metric:b', 'a label:__name__ column needs exactly one metric column; got 2');
  });
});

describe('csv export format', () => {
  it('parses export columns and derives the import format', () => {
    const f = (format: string, want: string): void => {
      expect(importFormatFor(parseExportFormat(format))).toBe(want);
    };
    f('__name__,__value__,__timestamp__:unix_s', '1:label:__name__,2:metric:value,3:time:unix_s');
    f('__timestamp__,job,__name__,__value__,instance', '1:time:unix_ms,2:label:job,3:label:__name__,4:metric:value,5:label:instance');
    f('__value__,__timestamp__:rfc3339,job,job', '1:metric:value,2:time:rfc3339,3:label:job');
    expect(importFormatFor(parseExportFormat('__value__'), 'my_metric')).toBe('1:metric:my_metric');
  });

  it('rejects bad export formats', () => {
    const f = (format: string, want: string): void => {
      expect(() => importFormatFor(parseExportFormat(format))).toThrow(`invalid "format" argument: ${want}`);
    };
    f('', 'must not be empty; want e.g. __name__,__value__,__timestamp__:unix_s');
    f('__name__,,__value__', 'entry #2 is empty');
    f('__timestamp__:unix_us', 'entry #1: unknown timestamp unit "unix_us"; want one of unix_s, unix_ms, unix_ns, rfc3339');
    f('__name__,job', 'has no __value__ column, so it cannot be imported');
    f('__name__,__value__,__value__', 'has several __value__ columns and a __name__ column, so it cannot be imported');
  });
});
