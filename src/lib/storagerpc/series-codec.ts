// The searchSeries stream payload (FORMAT.md, "searchSeries"): each SERIES frame carries a flags
// byte and blocks of the native export format (src/lib/protoparser/native, FORMAT.md there):
// labels, delta-of-delta timestamps and integer or XOR values per block of up to 8192 samples,
// CRC-checked. A series longer than SAMPLES_PER_FRAME samples spans several frames, all but the
// last with FLAG_MORE; the client joins them. The native encoder and decoder are reused as they
// are: one definition of how samples are laid out in bytes.

import { NativeDecoder } from '../protoparser/native/parse.ts';
import { encodeSeries, header } from '../protoparser/native/write.ts';
import type { ByteWriter } from '../bytes/index.ts';
import type { Label, SeriesSamples } from '../storageapi/api.ts';
import { RpcProtocolError } from './codec.ts';

/** FLAG_MORE: the next SERIES frame of the call continues this series. */
export const FLAG_MORE = 1;
/** SAMPLES_PER_FRAME caps the samples of one frame (8 native blocks: about 1 MiB at worst). */
export const SAMPLES_PER_FRAME = 65_536;

/**
 * seriesChunks calls write for each frame body of s, in order: the flags byte then its blocks.
 * A series without samples has nothing to stream and writes nothing.
 */
export function seriesChunks(s: SeriesSamples, write: (flags: number, blocks: Buffer) => void): void {
  const n = s.timestamps.length;
  for (let from = 0; from < n; from += SAMPLES_PER_FRAME) {
    const to = Math.min(n, from + SAMPLES_PER_FRAME);
    const whole = from === 0 && to === n;
    const ts = whole ? s.timestamps : s.timestamps.subarray(from, to);
    const vs = whole ? s.values : s.values.subarray(from, to);
    write(to < n ? FLAG_MORE : 0, encodeSeries(s.labels, ts, vs));
  }
}

/** writeSeriesBody appends one frame body produced by seriesChunks. */
export function writeSeriesBody(w: ByteWriter, flags: number, blocks: Buffer): void {
  w.writeU8(flags);
  w.writeBytes(blocks);
}

/**
 * SeriesAssembler turns the SERIES frame bodies of one call back into SeriesSamples. Throws
 * RpcProtocolError for bytes that do not decode (the connection is then unusable).
 */
export class SeriesAssembler {
  readonly #decoder = new NativeDecoder();
  #labels: Label[] | undefined;
  #ts: Float64Array[] = [];
  #vs: Float64Array[] = [];
  #n = 0;

  constructor() {
    this.#decoder.push(header());
  }

  /** push takes one frame body; returns the series it completes, or undefined while FLAG_MORE. */
  push(body: Buffer): SeriesSamples | undefined {
    if (body.length < 1) throw new RpcProtocolError('empty SERIES frame');
    const flags = body[0]!;
    if ((flags & ~FLAG_MORE) !== 0) throw new RpcProtocolError(`unknown SERIES flags 0x${flags.toString(16)}`);
    let blocks;
    try {
      blocks = this.#decoder.push(body.subarray(1));
      this.#decoder.end(); // each frame holds whole blocks
    } catch (err) {
      throw new RpcProtocolError(`cannot decode a SERIES frame: ${(err as Error).message}`, { cause: err });
    }
    if (blocks.length === 0) throw new RpcProtocolError('SERIES frame without samples');
    for (const b of blocks) {
      if (this.#labels === undefined) this.#labels = b.labels;
      else if (!sameLabels(this.#labels, b.labels)) throw new RpcProtocolError('SERIES frame mixes the blocks of two series');
      this.#ts.push(b.timestamps);
      this.#vs.push(b.values);
      this.#n += b.timestamps.length;
    }
    if (flags & FLAG_MORE) return undefined;
    const out: SeriesSamples = { labels: this.#labels!, timestamps: join(this.#ts, this.#n), values: join(this.#vs, this.#n) };
    this.#labels = undefined;
    this.#ts = [];
    this.#vs = [];
    this.#n = 0;
    return out;
  }

  /** pending reports a series whose last frame has not come (a stream may not end there). */
  get pending(): boolean {
    return this.#labels !== undefined;
  }
}

function sameLabels(a: readonly Label[], b: readonly Label[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.name !== b[i]!.name || a[i]!.value !== b[i]!.value) return false;
  return true;
}

// join concatenates typed arrays with set() (a byte copy: NaN payloads survive).
function join(parts: Float64Array[], n: number): Float64Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Float64Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
