import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { timeParser, formatTime, type TimeUnit } from './time.ts';
import { isLineFailure } from '../common/line-failure.ts';

const run = (format: string, s: string): number | string => {
  try {
    return timeParser(format)(s);
  } catch (e) {
    if (isLineFailure(e)) return e.reason;
    throw e;
  }
};

describe('csv time formats', () => {
  it('parses unix timestamps', () => {
    const f = (format: string, s: string, want: number | string): void => {
      expect(run(format, s)).toBe(want);
    };
    f('unix_s', '1700000000', 1700000000000);
    f('unix_s', '1700000000.123', 1700000000123);
    f('unix_s', '-1.5', -1500);
    f('unix_s', 'x', 'cannot parse number "x"');
    f('unix_s', 'NaN', 'cannot parse timestamp "NaN"');
    f('unix_s', '1e300', 'timestamp "1e300" is out of range');
    f('unix_ms', '1700000000123', 1700000000123);
    f('unix_ns', '1700000000123456789', 1700000000123);
    f('unix_ns', '-1500000', -1);
    f('unix_ns', '999', 0);
    f('unix_ns', '1.5', 'cannot parse timestamp "1.5"');
  });

  it('parses RFC 3339 and Go layouts', () => {
    const f = (format: string, s: string, want: number | string): void => {
      expect(run(format, s)).toBe(want);
    };
    f('rfc3339', '2023-11-14T22:13:20Z', 1700000000000);
    f('rfc3339', '2023-11-14T22:13:20.123Z', 1700000000123);
    f('rfc3339', '2023-11-14T22:13:20.1239999Z', 1700000000123);
    f('rfc3339', '2023-11-15T00:13:20+02:00', 1700000000000);
    f('rfc3339', '2023-11-14T17:13:20-05:00', 1700000000000);
    f('rfc3339', '1969-12-31T23:59:59Z', -1000);
    f('rfc3339', '0001-01-01T00:00:00Z', -62135596800000);
    f('rfc3339', '2023-11-14 22:13:20Z', 'cannot parse time "2023-11-14 22:13:20Z" with layout "2006-01-02T15:04:05Z07:00"');
    f('rfc3339', '2023-02-30T00:00:00Z', 'cannot parse time "2023-02-30T00:00:00Z" with layout "2006-01-02T15:04:05Z07:00"');
    f('rfc3339', '2023-11-14T24:00:00Z', 'cannot parse time "2023-11-14T24:00:00Z" with layout "2006-01-02T15:04:05Z07:00"');
    f('rfc3339', '2023-11-14T22:13:20', 'cannot parse time "2023-11-14T22:13:20" with layout "2006-01-02T15:04:05Z07:00"');
    f('custom:2006-01-02 15:04:05', '2023-11-14 22:13:20', 1700000000000);
    f('custom:2006-01-02 15:04:05.000', '2023-11-14 22:13:20.120', 1700000000120);
    f('custom:2006-01-02 15:04:05.000', '2023-11-14 22:13:20.12', 'cannot parse time "2023-11-14 22:13:20.12" with layout "2006-01-02 15:04:05.000"');
    f('custom:2006-01-02 15:04:05.999', '2023-11-14 22:13:20', 1700000000000);
    f('custom:02/01/06 3:04PM', '14/11/23 10:13PM', 1699999980000);
    f('custom:02/01/06 3:04pm', '14/11/23 12:00am', 1699920000000);
    f('custom:Jan _2 15:04:05 2006', 'Nov 14 22:13:20 2023', 1700000000000);
    f('custom:Monday, 02-Jan-06 15:04:05 MST', 'Tuesday, 14-Nov-23 22:13:20 UTC', 1700000000000);
    f('custom:Mon Jan 2 15:04:05 -0700 2006', 'Tue Nov 14 15:13:20 -0700 2023', 1700000000000);
    f('custom:January 2, 2006', 'November 14, 2023', 1699920000000);
    f('custom:20060102', '20231114', 1699920000000);
    f('custom:2006-01-02', '2023-11-14T00:00:00Z', 'cannot parse time "2023-11-14T00:00:00Z" with layout "2006-01-02"');
  });

  it('formats losslessly and reads its own output back', () => {
    const f = (ms: number, unit: TimeUnit, want: string): void => {
      expect(formatTime(ms, unit)).toBe(want);
    };
    f(1700000000000, 'unix_s', '1700000000');
    f(1700000000120, 'unix_s', '1700000000.12');
    f(-500, 'unix_s', '-0.5');
    f(1700000000123, 'unix_ms', '1700000000123');
    f(1700000000123, 'unix_ns', '1700000000123000000');
    f(0, 'unix_ns', '0');
    f(1700000000000, 'rfc3339', '2023-11-14T22:13:20Z');
    f(1700000000123, 'rfc3339', '2023-11-14T22:13:20.123Z');
    fc.assert(
      fc.property(fc.integer({ min: -62135596800000, max: 253402300799999 }), fc.constantFrom<TimeUnit>('unix_s', 'unix_ms', 'unix_ns', 'rfc3339'), (ms, unit) => {
        expect(timeParser(unit)(formatTime(ms, unit))).toBe(ms);
      }),
      { numRuns: 2000 },
    );
  });
});
