import { describe, it, expect } from 'vitest';
import { parse, parsePrecision, type InfluxParseOptions } from './parse.ts';
import { showRows } from '../common/testing.ts';
import { InvalidArgumentError } from '../common/parse-error.ts';

const now = (): number => 1000;

describe('influx parse', () => {
  it('maps fields to metrics named <measurement>_<field>', () => {
    const f = (text: string, want: string[], opts: Partial<InfluxParseOptions> = {}): void => {
      const r = parse(text, { now, ...opts });
      expect(r.errors.describe()).toBe('');
      expect(showRows(r.rows)).toEqual(want);
    };
    // the usage example of the write endpoint
    f('measurement,tag1=value1,tag2=value2 field1=123,field2=1.23', [
      'measurement_field1{tag1="value1",tag2="value2"} 123 @1000',
      'measurement_field2{tag1="value1",tag2="value2"} 1.23 @1000',
    ]);
    // a field named value keeps the prefix rule
    f('cpu value=1', ['cpu_value{} 1 @1000']);
    // empty measurement: the field key alone
    f(',host=a load=2', ['load{host="a"} 2 @1000']);
    f(' load=2', ['load{} 2 @1000']);
    // value types: float, integer, unsigned, booleans; strings skipped
    f('m a=1.5,b=-3i,c=7u,d=t,e=FALSE,f="text, with = signs",g=1e3', [
      'm_a{} 1.5 @1000', 'm_b{} -3 @1000', 'm_c{} 7 @1000', 'm_d{} 1 @1000', 'm_e{} 0 @1000', 'm_g{} 1000 @1000',
    ]);
    f('m s="only a string"', []);
    f('m s="quote \\" inside",v=2', ['m_v{} 2 @1000']);
    // escapes in measurement, tags and field keys
    f('my\\ cpu\\,x,host\\ name=a\\,b\\=c f\\=1=1', ['my cpu,x_f=1{host name="a,b=c"} 1 @1000']);
    // tags: empty ones skipped, last duplicate wins, sorted
    f('m,z=1,a=,b=2,b=3 v=1', ['m_v{b="3",z="1"} 1 @1000']);
    // comments, blank lines, CRLF
    f('# comment\n\nm v=1\r\n', ['m_v{} 1 @1000']);
    // naming options
    f('m v=1', ['m{} 1 @1000'], { skipSingleField: true });
    f('m v=1,w=2', ['m_v{} 1 @1000', 'm_w{} 2 @1000'], { skipSingleField: true });
    f('m v=1', ['v{} 1 @1000'], { skipMeasurement: true });
    f('m v=1', ['m.v{} 1 @1000'], { measurementFieldSeparator: '.' });
  });

  it('converts timestamps by precision', () => {
    const f = (text: string, precision: InfluxParseOptions['precision'], want: string[]): void => {
      const r = parse(text, { now, ...(precision ? { precision } : {}) });
      expect(r.errors.describe()).toBe('');
      expect(showRows(r.rows)).toEqual(want);
    };
    f('m v=1 1700000000123456789', undefined, ['m_v{} 1 @1700000000123']);
    f('m v=1 1700000000123999999', 'ns', ['m_v{} 1 @1700000000123']);
    f('m v=1 999999', 'ns', ['m_v{} 1 @0']);
    f('m v=1 -1500000', 'ns', ['m_v{} 1 @-1']);
    f('m v=1 1700000000123456', 'us', ['m_v{} 1 @1700000000123']);
    f('m v=1 1700000000123', 'ms', ['m_v{} 1 @1700000000123']);
    f('m v=1 1700000000', 's', ['m_v{} 1 @1700000000000']);
    f('m v=1 2', 'm', ['m_v{} 1 @120000']);
    f('m v=1 2', 'h', ['m_v{} 1 @7200000']);
    // missing or zero timestamp means now; trailing spaces are fine
    f('m v=1', 's', ['m_v{} 1 @1000']);
    f('m v=1 0', 's', ['m_v{} 1 @1000']);
    f('m v=1   ', 's', ['m_v{} 1 @1000']);
  });

  it('adds the db label unless a db tag exists', () => {
    const f = (text: string, db: string, want: string[]): void => {
      expect(showRows(parse(text, { now, db }).rows)).toEqual(want);
    };
    f('m v=1', 'telegraf', ['m_v{db="telegraf"} 1 @1000']);
    f('m,db=own v=1', 'telegraf', ['m_v{db="own"} 1 @1000']);
    f('m v=1', '', ['m_v{} 1 @1000']);
  });

  it('rejects bad lines and keeps the good ones', () => {
    const f = (text: string, want: string): void => {
      const r = parse(`ok v=1\n${text}\nok v=2`, { now });
      expect(showRows(r.rows)).toEqual(['ok_v{} 1 @1000', 'ok_v{} 2 @1000']);
      expect(r.errors.count).toBe(1);
      expect(r.errors.first?.message).toBe(want);
    };
    f('m', 'line 2: missing fields after "m"');
    f('m,tag v=1', 'line 2: missing "=" in tag "tag"');
    f('m v', 'line 2: missing "=" in field "v"');
    f('m a,b=1', 'line 2: missing "=" in field "a"');
    f('m =1', 'line 2: empty field key');
    f('m v=', 'line 2: empty value for field "v"');
    f('m v=abc', 'line 2: cannot parse value of field "v" from "abc"');
    f('m v=1.5i', 'line 2: cannot parse integer field "v" from "1.5i"');
    f('m v=-1u', 'line 2: cannot parse integer field "v" from "-1u"');
    f('m v="open', 'line 2: missing closing quote in string field "v"');
    f('m v="x"y', 'line 2: unexpected text after field "v": "y"');
    f('m v=1 12a', 'line 2: cannot parse timestamp "12a"');
    f('m v=1 1 2', 'line 2: cannot parse timestamp "1 2"');
    f('m v=1 999999999999999999999999', 'line 2: timestamp "999999999999999999999999" is out of range');
  });

  it('validates the precision arg', () => {
    const f = (arg: string | undefined, want: string): void => {
      try {
        expect(parsePrecision(arg)).toBe(want);
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidArgumentError);
        expect((e as Error).message).toBe(want);
      }
    };
    f(undefined, 'ns');
    f('', 'ns');
    f('n', 'ns');
    f('u', 'us');
    f('ms', 'ms');
    f('s', 's');
    f('h', 'h');
    f('d', 'invalid "precision" argument: "d" is not one of ns, us, ms, s, m, h');
  });
});
