import fc from 'fast-check';
import { parse } from './parse.ts';
import { describeJsonDocumentFuzz } from '../common/fuzz-json-document.ts';

const point = fc.record({ metric: fc.jsonValue(), timestamp: fc.jsonValue(), value: fc.jsonValue(), tags: fc.jsonValue() }, { requiredKeys: [] });

describeJsonDocumentFuzz('opentsdb http', {
  parse,
  corpus: [
    '[{"metric":"x.y","value":45.34},{"metric":"t","timestamp":1700000000,"value":"1","tags":{"a":"b"}}]',
    '{"metric":"m","timestamp":1700000000123,"value":1e3,"tags":{"n":7}}',
  ],
  alphabet: '[]{}":,0123456789.-emetricvaluetags',
  documents: fc.oneof(point, fc.array(point), fc.jsonValue()),
});
