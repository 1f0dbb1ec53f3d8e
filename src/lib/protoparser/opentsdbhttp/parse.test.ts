import { describe, it, expect } from 'vitest';
import { parse } from './parse.ts';
import { showRows } from '../common/testing.ts';
import { ParseError } from '../common/parse-error.ts';

const now = (): number => 1000;

describe('opentsdb http parse', () => {
  it('parses an object or an array of data points', () => {
    const f = (body: string, want: string[]): void => {
      const r = parse(body, { now });
      expect(r.errors.describe('item')).toBe('');
      expect(showRows(r.rows)).toEqual(want);
    };
    // the receiver's documented shape: {metric, value}, timestamp optional
    f('[{"metric":"x.y.z","value":45.34},{"metric":"t1","value":1,"tags":{"a":"b"}}]', ['x.y.z{} 45.34 @1000', 't1{a="b"} 1 @1000']);
    f('{"metric":"sys.cpu","timestamp":1700000000,"value":42.5,"tags":{"host":"web01","dc":"lga"}}', ['sys.cpu{dc="lga",host="web01"} 42.5 @1700000000000']);
    f('{"metric":"m","timestamp":1700000000123,"value":"12.5"}', ['m{} 12.5 @1700000000123']);
    f('{"metric":"m","timestamp":0,"value":1,"tags":{"n":7,"b":true,"e":""}}', ['m{b="true",n="7"} 1 @1000']);
    f('{"metric":"m","timestamp":"1700000000","value":"NaN"}', ['m{} NaN @1700000000000']);
    f(Buffer.from('[]').toString(), []);
  });

  it('skips bad data points and names them', () => {
    const f = (body: string, rows: number, want: string): void => {
      const r = parse(body, { now });
      expect(r.rows).toHaveLength(rows);
      expect(r.errors.first?.message).toBe(want);
    };
    f('[{"metric":"ok","value":1},{"value":1}]', 1, '[1]: missing "metric"');
    f('[{"metric":"m","value":"abc"}]', 0, '[0]: cannot parse "value" "\\"abc\\""');
    f('[{"metric":"m"}]', 0, '[0]: cannot parse "value" "undefined"');
    f('[{"metric":"m","value":1,"timestamp":"x"}]', 0, '[0]: cannot parse "timestamp" "\\"x\\""');
    f('[{"metric":"m","value":1,"tags":["a"]}]', 0, '[0]: "tags" must be an object; got array');
    f('[{"metric":"m","value":1,"tags":{"a":{}}}]', 0, '[0]: tag "a" must be a string; got object');
    f('[1]', 0, '[0]: data point must be an object; got number');
    f('"x"', 0, 'body: data point must be an object; got string');
  });

  it('rejects a body that is not JSON', () => {
    expect(() => parse('[{"metric":', { now })).toThrow(ParseError);
    expect(() => parse('nope', { now })).toThrow(/^cannot parse JSON: /);
  });
});
