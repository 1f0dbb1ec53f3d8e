import { describe, it, expect } from 'vitest';
import { parse, sanitizeName } from './parse.ts';
import { showRows } from '../common/testing.ts';
import { ParseError } from '../common/parse-error.ts';

const now = (): number => 1000;

describe('agent format parse', () => {
  it('maps series to rows', () => {
    const f = (series: unknown[], want: string[], sanitizeMetricName?: boolean): void => {
      const r = parse(JSON.stringify({ series }), { now, ...(sanitizeMetricName === undefined ? {} : { sanitizeMetricName }) });
      expect(r.errors.describe('series')).toBe('');
      expect(showRows(r.rows)).toEqual(want);
    };
    // the endpoint's documented shape
    f(
      [{ host: 'test.example.com', interval: 20, metric: 'system.load.1', points: [[1700000000, 0.5], [1700000010, 0.7]], tags: ['environment:test', 'role:db'], type: 'rate' }],
      ['system.load.1{environment="test",host="test.example.com",role="db"} 0.5 @1700000000000', 'system.load.1{environment="test",host="test.example.com",role="db"} 0.7 @1700000010000'],
    );
    // tags without ":", a host tag, device, fractional and non-positive timestamps
    f([{ metric: 'm', points: [[1.5, 1], [0, 2], [-1, 3]], tags: ['solo', 'host:other', 'url:http://x', 'k:a', 'k:b'], device: 'sda' }], [
      'm{device="sda",exported_host="other",k="b",solo="no_label_value",url="http://x"} 1 @1500',
      'm{device="sda",exported_host="other",k="b",solo="no_label_value",url="http://x"} 2 @1000',
      'm{device="sda",exported_host="other",k="b",solo="no_label_value",url="http://x"} 3 @1000',
    ]);
    // metric names are sanitized the Datadog way unless disabled
    f([{ metric: 'my-app..requests__total', points: [[1, 1]] }], ['my_app..requests_total{} 1 @1000']);
    f([{ metric: 'my-app', points: [[1, 1]], tags: ['a b:c'] }], ['my-app{a b="c"} 1 @1000'], false);
    f([], []);
  });

  it('sanitizes names like Datadog', () => {
    const f = (input: string, want: string): void => {
      expect(sanitizeName(input)).toBe(want);
    };
    f('system.cpu.user', 'system.cpu.user');
    f('a-b c', 'a_b_c');
    f('a__b', 'a_b');
    f('a_.b', 'a.b');
    f('a._b', 'a.b');
    f('ümlaut', '_mlaut');
  });

  it('skips bad series and names them', () => {
    const f = (series: unknown[], rows: number, want: string): void => {
      const r = parse(JSON.stringify({ series }), { now });
      expect(r.rows).toHaveLength(rows);
      expect(r.errors.first?.message).toBe(want);
    };
    f([{ metric: 'ok', points: [[1, 1]] }, { points: [[1, 1]] }], 1, 'series[1]: missing "metric"');
    f([{ metric: 'm', points: [[1, 1], [1, '2']] }], 0, 'series[0]: a point must be [timestamp, value] numbers; got "[1,\\"2\\"]"');
    f([{ metric: 'm', points: 5 }], 0, 'series[0]: "points" must be an array; got number');
    f([{ metric: 'm', points: [], tags: 'a:b' }], 0, 'series[0]: "tags" must be an array; got string');
    f([{ metric: 'm', points: [], tags: [1] }], 0, 'series[0]: tags must be strings; got number');
    f([{ metric: 'm', points: [], host: 1 }], 0, 'series[0]: "host" must be a string; got number');
    f([{ metric: 'm', points: [[1e300, 1]] }], 0, 'series[0]: timestamp 1e+300 is out of range');
    f([null], 0, 'series[0]: series must be an object; got null');
  });

  it('rejects bodies of the wrong shape', () => {
    expect(() => parse('[]', { now })).toThrow(new ParseError('body must be a JSON object; got array'));
    expect(() => parse('{}', { now })).toThrow('"series" must be an array; got undefined');
    expect(() => parse('{"series":', { now })).toThrow(/^cannot parse JSON/);
  });
});
