// The searchSeries stream payload (FORMAT.md, "Storage node RPC", searchSeries): each SERIES
// frame carries a flags byte and a chunk of one series' items (src/lib/storage/series-blocks.ts:
// the node's part blocks as stored, buffered rows as plain samples); the first frame of a series
// also carries its labels, the search range and the node's deduplication interval. A series
// whose items span several chunks spans several frames, all but the last with FLAG_MORE. The
// client decodes the blocks with the storage engine's own decoder (no second copy of it).

import type { ByteWriter } from '../bytes/index.ts';
import { CorruptDataError } from '../bytes/index.ts';
import { SeriesBlocksDecoder, type SeriesBlocks } from '../storage/series-blocks.ts';
import type { Labels, SeriesSamples } from '../storageapi/api.ts';
import { readLabels, reader, RpcProtocolError, writeLabels } from './codec.ts';

/** FLAG_MORE: the next SERIES frame of the call continues this series. */
export const FLAG_MORE = 1;

/** seriesFrameBodies calls write for each frame body of s, in order. */
export function seriesFrameBodies(s: SeriesBlocks, write: (body: (w: ByteWriter) => void, size: number) => void): void {
  const n = s.chunks.length;
  for (let i = 0; i < n; i++) {
    const chunk = s.chunks[i]!;
    const flags = i + 1 < n ? FLAG_MORE : 0;
    if (i > 0) {
      write((w) => {
        w.writeU8(flags);
        w.writeBytes(chunk);
      }, 1 + chunk.length);
      continue;
    }
    write((w) => {
      w.writeU8(flags);
      writeLabels(w, s.labels);
      w.writeF64(s.minTs);
      w.writeF64(s.maxTs);
      w.writeUvarint(s.dedupMs);
      w.writeBytes(chunk);
    }, 64 + chunk.length);
  }
}

/**
 * SeriesAssembler turns the SERIES frame bodies of one call back into SeriesSamples (owned
 * arrays). Throws RpcProtocolError for bytes that do not decode (the connection is then unusable).
 */
export class SeriesAssembler {
  readonly #decoder = new SeriesBlocksDecoder();
  #labels: Labels | undefined;
  #minTs = 0;
  #maxTs = 0;
  #dedupMs = 0;

  /**
   * push takes one frame body; returns the series it completes, null when that series has no
   * sample in the range once decoded, or undefined while FLAG_MORE.
   */
  push(body: Buffer): SeriesSamples | null | undefined {
    try {
      return this.#push(body);
    } catch (err) {
      if (!(err instanceof CorruptDataError)) throw err;
      const of = this.#labels === undefined ? '' : ` of series ${labelsText(this.#labels)}`;
      this.#labels = undefined;
      throw new RpcProtocolError(`cannot decode a SERIES frame${of}: ${err.message}`, { cause: err });
    }
  }

  #push(body: Buffer): SeriesSamples | null | undefined {
    const r = reader(body, 'SERIES frame');
    const flags = r.readU8();
    if ((flags & ~FLAG_MORE) !== 0) throw new RpcProtocolError(`unknown SERIES flags 0x${flags.toString(16)}`);
    if (this.#labels === undefined) {
      const labels = readLabels(r);
      this.#minTs = r.readF64();
      this.#maxTs = r.readF64();
      this.#dedupMs = r.readUvarint();
      if (Number.isNaN(this.#minTs) || Number.isNaN(this.#maxTs)) throw new RpcProtocolError(`SERIES frame with range ${this.#minTs}..${this.#maxTs}`);
      this.#labels = labels;
      this.#decoder.begin('the samples'); // the series is named when decoding fails (above)
    }
    if (r.remaining() === 0) throw new RpcProtocolError('SERIES frame without samples');
    this.#decoder.push(body.subarray(r.pos), this.#minTs, this.#maxTs);
    if (flags & FLAG_MORE) return undefined;
    const labels = this.#labels;
    this.#labels = undefined;
    const [lo, hi] = this.#decoder.finish(this.#dedupMs, this.#minTs, this.#maxTs);
    if (hi <= lo) return null;
    const s = this.#decoder.scratch;
    return { labels, timestamps: s.ts.slice(lo, hi), values: s.vals.slice(lo, hi) };
  }

  /** pending reports a series whose last frame has not come (a stream may not end there). */
  get pending(): boolean {
    return this.#labels !== undefined;
  }
}

function labelsText(labels: Labels): string {
  return `{${labels.map((l) => `${l.name}=${JSON.stringify(l.value)}`).join(', ')}}`;
}
