import { describe, it, expect } from 'vitest';
import { isStaleNaN } from '../../storageapi/index.ts';
import { parse } from './parse.ts';
import { showRows } from '../common/testing.ts';

describe('jsonline parse', () => {
  it('parses series lines', () => {
    const f = (text: string, want: string[]): void => {
      const r = parse(text);
      expect(r.errors.describe()).toBe('');
      expect(showRows(r.rows)).toEqual(want);
    };
    // the export/import line shape
    f('{"metric":{"__name__":"up","job":"node","instance":"h:9100"},"values":[1,0],"timestamps":[1549891472010,1549891487724]}', [
      'up{instance="h:9100",job="node"} 1 @1549891472010',
      'up{instance="h:9100",job="node"} 0 @1549891487724',
    ]);
    // special values, null, numeric strings; label value types
    f('{"metric":{"__name__":"m","code":200,"ok":true,"gone":null,"e":""},"values":[null,"NaN","Inf","-Inf","+Inf","infinity","1.5",-0],"timestamps":[1,2,3,4,5,6,7,8]}', [
      'm{code="200",ok="true"} NaN @1', 'm{code="200",ok="true"} NaN @2', 'm{code="200",ok="true"} +Inf @3', 'm{code="200",ok="true"} -Inf @4',
      'm{code="200",ok="true"} +Inf @5', 'm{code="200",ok="true"} +Inf @6', 'm{code="200",ok="true"} 1.5 @7', 'm{code="200",ok="true"} -0 @8',
    ]);
    // older VictoriaMetrics exports write special values bare (Go's spelling), which JSON lacks
    f('{"metric":{"__name__":"m"},"values":[+Inf,-Inf,NaN,Inf,inf,-nan,Infinity,-Infinity, NaN ],"timestamps":[1,2,3,4,5,6,7,8,9]}', [
      'm{} +Inf @1', 'm{} -Inf @2', 'm{} NaN @3', 'm{} +Inf @4', 'm{} +Inf @5', 'm{} NaN @6', 'm{} +Inf @7', 'm{} -Inf @8', 'm{} NaN @9',
    ]);
    // ... also next to quoted text that spells the same words, which stays as it is
    f('{"metric":{"__name__":"Inf","x":"NaN,-Inf]"},"values":[-Inf],"timestamps":[1]}', ['Inf{x="NaN,-Inf]"} -Inf @1']);
    // blank lines, CRLF, several series
    f('\n{"metric":{"__name__":"a"},"values":[1],"timestamps":[1]}\r\n  \n{"metric":{"__name__":"b"},"values":[2],"timestamps":[-2]}', ['a{} 1 @1', 'b{} 2 @-2']);
    // a series without __name__ is allowed
    f('{"metric":{"job":"x"},"values":[1],"timestamps":[1]}', ['{job="x"} 1 @1']);
  });

  it('reads null as a staleness marker and "NaN" as a plain NaN', () => {
    const r = parse('{"metric":{"__name__":"m"},"values":[null,"NaN",NaN],"timestamps":[1,2,3]}');
    expect(r.rows.map((row) => [Number.isNaN(row.value), isStaleNaN(row.value)])).toEqual([[true, true], [true, false], [true, false]]);
  });

  it('rejects bad lines and keeps the good ones', () => {
    const good = '{"metric":{"__name__":"ok"},"values":[1],"timestamps":[1]}';
    const f = (line: string, want: string): void => {
      const r = parse(`${good}\n${line}\n${good}`);
      expect(r.rows).toHaveLength(2);
      expect(r.errors.count).toBe(1);
      expect(r.errors.first?.message).toEqual(want);
    };
    f('{"metric":', expect.stringMatching(/^line 2: cannot parse JSON: /) as unknown as string);
    f('[1]', 'line 2: line must be a JSON object; got array');
    f('{"values":[1],"timestamps":[1]}', 'line 2: missing "metric" object');
    f('{"metric":{},"values":[1],"timestamps":[1]}', 'line 2: "metric" has no labels');
    f('{"metric":{"a":{}},"values":[1],"timestamps":[1]}', 'line 2: label "a" must be a string; got object');
    f('{"metric":{"a":"1"},"timestamps":[1]}', 'line 2: missing "values" array');
    f('{"metric":{"a":"1"},"values":[],"timestamps":[]}', 'line 2: missing "values" array');
    f('{"metric":{"a":"1"},"values":[1]}', 'line 2: missing "timestamps" array');
    f('{"metric":{"a":"1"},"values":[1,2],"timestamps":[1]}', 'line 2: "timestamps" has 1 entries but "values" has 2');
    f('{"metric":{"a":"1"},"values":[1],"timestamps":[1.5]}', 'line 2: timestamp at position 0 must be an integer (ms); got "1.5"');
    f('{"metric":{"a":"1"},"values":[1],"timestamps":[1e300]}', 'line 2: timestamp at position 0 must be an integer (ms); got "1e+300"');
    f('{"metric":{"a":"1"},"values":["x"],"timestamps":[1]}', 'line 2: cannot parse value at position 0: "\\"x\\""');
    f('{"metric":{"a":"1"},"values":[true],"timestamps":[1]}', 'line 2: cannot parse value at position 0: "true"');
    // bare words other than the special values stay invalid JSON, reported as JSON.parse saw them
    f('{"metric":{"a":"1"},"values":[Infx],"timestamps":[1]}', expect.stringMatching(/^line 2: cannot parse JSON: Unexpected token 'I'/) as unknown as string);
    f('{"metric":{"a":"1"},"values":[nancy],"timestamps":[1]}', expect.stringMatching(/^line 2: cannot parse JSON: /) as unknown as string);
    f('{"metric":{"a":"1"},"values":[Inf],"timestamps":[1],}', expect.stringMatching(/^line 2: cannot parse JSON: /) as unknown as string);
  });
});
