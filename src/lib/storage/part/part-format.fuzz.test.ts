import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CorruptDataError } from '../common/errors.ts';
import { decodeBlockHeaders, decodeMetaindex } from './part-format.ts';
import { parseSegment } from '../wal/wal-replay.ts';

const onlyCorrupt = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CorruptDataError);
  }
};

describe('part format decoders', () => {
  it('decode garbage into headers or a CorruptDataError, nothing else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.integer({ min: 0, max: 12 }), (bytes, count) => {
        onlyCorrupt(() => decodeBlockHeaders(bytes, count, 'fuzz'));
        onlyCorrupt(() => decodeMetaindex(bytes, 'fuzz'));
        parseSegment(bytes, 'fuzz');
      }),
      { numRuns: 2000 },
    );
  });
});
