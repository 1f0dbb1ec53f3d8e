import fc from 'fast-check';
import { parse } from './parse.ts';
import { describeJsonDocumentFuzz } from '../common/fuzz-json-document.ts';

const series = fc.record(
  { metric: fc.jsonValue(), points: fc.oneof(fc.jsonValue(), fc.array(fc.tuple(fc.jsonValue(), fc.jsonValue()))), tags: fc.jsonValue(), host: fc.jsonValue(), device: fc.jsonValue() },
  { requiredKeys: [] },
);

describeJsonDocumentFuzz('agent format', {
  parse,
  corpus: [
    '{"series":[{"host":"h","interval":20,"metric":"system.load.1","points":[[1700000000,0.5]],"tags":["environment:test","solo"],"type":"rate"}]}',
    '{"series":[{"metric":"a-b","points":[[1.5,1],[0,2]],"device":"sda"}]}',
  ],
  alphabet: '[]{}":,0123456789.-eseriesmetricpointstagshost',
  documents: fc.oneof(fc.record({ series: fc.array(series) }), fc.jsonValue()),
});
