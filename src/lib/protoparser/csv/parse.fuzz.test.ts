import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { parse } from './parse.ts';
import { parseFormat } from './format.ts';
import { InvalidArgumentError } from '../common/parse-error.ts';
import { anyText, labelsAreCanonical, mutatedText } from '../common/testing.ts';

const formats = [
  parseFormat('2:metric:ask,3:metric:bid,1:label:ticker,4:label:market'),
  parseFormat('1:label:__name__,2:metric:value,3:time:rfc3339,4:label:job'),
  parseFormat('1:time:custom:Jan _2 15:04:05.000 2006,2:metric:v'),
];
const corpus = ['GOOG,1.23,4.56,NYSE\n"MS,FT",3.21,,"NAS""DAQ"', 'up,1,2023-11-14T22:13:20.5+02:00,node\r\n"a\nb",NaN,2023-11-14T22:13:20Z,', 'Nov 14 22:13:20.123 2023,5'];
const alphabet = ',"\n\r:.-+0123456789TZNaIf ';

function check(text: string, f: number): void {
  const r = parse(text, { format: formats[f]!, now: () => 7 });
  for (const row of r.rows) {
    expect(labelsAreCanonical(row)).toBe(true);
    expect(Number.isSafeInteger(row.timestamp)).toBe(true);
  }
}

describe('csv parse fuzz', () => {
  const which = fc.nat({ max: formats.length - 1 });
  it('never throws on arbitrary text', () => {
    fc.assert(fc.property(anyText(alphabet), which, check), { numRuns: 1500 });
  });
  it('never throws on mutated valid input', () => {
    fc.assert(fc.property(mutatedText(corpus, alphabet), which, check), { numRuns: 3000 });
  });
  it('parseFormat gives a format or an InvalidArgumentError', () => {
    const corpusFormats = ['2:metric:ask,3:metric:bid,1:label:ticker', '1:label:__name__,2:metric:value,3:time:custom:2006-01-02 15:04:05.999Z07:00'];
    fc.assert(
      fc.property(fc.oneof(mutatedText(corpusFormats, ':,0123456789metriclabeltime_'), fc.string()), (format) => {
        try {
          parseFormat(format);
        } catch (e) {
          if (!(e instanceof InvalidArgumentError)) throw e;
        }
      }),
      { numRuns: 2000 },
    );
  });
});
