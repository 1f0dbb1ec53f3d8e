import { describe, it, expect } from 'vitest';
import { parse } from './parse.ts';
import { showRows } from '../common/testing.ts';

const now = (): number => 1000;

describe('opentsdb telnet parse', () => {
  it('parses put lines', () => {
    const f = (text: string, want: string[]): void => {
      const r = parse(text, { now });
      expect(r.errors.describe()).toBe('');
      expect(showRows(r.rows)).toEqual(want);
    };
    // the receiver's documented shape
    f('put sys.cpu.user 1700000000 42.5 host=web01 cpu=0', ['sys.cpu.user{cpu="0",host="web01"} 42.5 @1700000000000']);
    // millisecond timestamps (13 digits) and fractional seconds
    f('put m 1700000000123 1', ['m{} 1 @1700000000123']);
    f('put m 1700000000.5 1', ['m{} 1 @1700000000500']);
    f('put m 0 1', ['m{} 1 @1000']);
    f('put  m\t5  -1e3   a=b  ', ['m{a="b"} -1000 @5000']);
    f('put m 5 1 a= =b a=1 a=2', ['m{a="2"} 1 @5000']);
    f('put m 5 1 k=v=w\r\n\n', ['m{k="v=w"} 1 @5000']);
  });

  it('rejects bad lines and keeps the good ones', () => {
    const f = (text: string, want: string): void => {
      const r = parse(`put ok 1 1\n${text}\nput ok 2 2`, { now });
      expect(showRows(r.rows)).toEqual(['ok{} 1 @1000', 'ok{} 2 @2000']);
      expect(r.errors.first?.message).toBe(want);
    };
    f('version', 'line 2: expected "put <metric> <timestamp> <value> <tags>"; got "version"');
    f('put', 'line 2: missing metric in "put"');
    f('put m', 'line 2: missing timestamp in "put m"');
    f('put m 1', 'line 2: missing value in "put m 1"');
    f('put m x 1', 'line 2: cannot parse number "x"');
    f('put m 1 x', 'line 2: cannot parse number "x"');
    f('put m 1 1 tag', 'line 2: missing "=" in tag "tag"');
    f('put m NaN 1', 'line 2: cannot parse timestamp "NaN"');
  });
});
