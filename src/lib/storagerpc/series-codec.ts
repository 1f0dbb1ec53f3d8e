// The searchSeries stream payload (FORMAT.md, "searchSeries"): each SERIES frame carries a flags
// byte, the series' labels and a run of its samples as two columns of raw little-endian doubles
// (timestamps, then values), like addRows. Raw columns, not a compressed encoding: the node
// already holds the samples decoded and the select node needs them decoded, so a compressed form
// would be encoded on one side and decoded on the other for every query — the two largest costs of
// a cluster query before protocol version 2 (the native format's delta-of-delta and XOR coding). On
// both sides the columns are copied byte for byte (NaN payloads survive). Padding puts the columns
// at a multiple of 8 bytes from the frame's start, so where the frame lies 8-aligned in the bytes
// received (nearly always: frames are whole multiples of 8 long too) the client's Float64Arrays
// are views of the received bytes, not copies. A series longer than
// SAMPLES_PER_FRAME samples spans several frames, all but the last with FLAG_MORE; the client
// joins them.

import type { ByteWriter } from '../storage/encoding/bytes.ts';
import type { Label, SeriesSamples } from '../storageapi/api.ts';
import { expectEnd, readCount, readLabels, reader, RpcProtocolError, writeLabels } from './codec.ts';

/** FLAG_MORE: the next SERIES frame of the call continues this series. */
export const FLAG_MORE = 1;
/** SAMPLES_PER_FRAME caps the samples of one frame (1 MiB of columns). */
export const SAMPLES_PER_FRAME = 65_536;
/** SAMPLE_BYTES is one sample's share of the two columns. */
const SAMPLE_BYTES = 16;

// The columns are copied between Float64Arrays and the wire as bytes: the wire is little-endian.
if (new Uint8Array(new Float64Array([1]).buffer)[7] !== 0x3f) throw new Error('storagerpc needs a little-endian host');

/**
 * seriesFrames calls frame for each frame of s, in order, with its flags and sample range
 * [from, to). A series without samples has nothing to stream and gets no frame.
 */
export function seriesFrames(s: SeriesSamples, frame: (flags: number, from: number, to: number) => void, perFrame = SAMPLES_PER_FRAME): void {
  const n = s.timestamps.length;
  for (let from = 0; from < n; from += perFrame) {
    const to = Math.min(n, from + perFrame);
    frame(to < n ? FLAG_MORE : 0, from, to);
  }
}

/** seriesBodyBytes is a close upper bound of a frame body's size, to size its buffer once. */
export function seriesBodyBytes(s: SeriesSamples, from: number, to: number): number {
  let labels = 8;
  for (const l of s.labels) labels += 10 + 3 * (l.name.length + l.value.length);
  return 1 + labels + 10 + 8 + (to - from) * SAMPLE_BYTES;
}

/**
 * writeSeriesBody appends the body of the frame of s holding samples [from, to); w holds the
 * frame from its first byte (position 0), so the columns land 8-aligned within the frame.
 */
export function writeSeriesBody(w: ByteWriter, s: SeriesSamples, flags: number, from: number, to: number): void {
  w.writeU8(flags);
  writeLabels(w, s.labels);
  w.writeUvarint(to - from);
  const pad = (8 - ((w.pos + 1) & 7)) & 7;
  w.writeU8(pad);
  for (let i = 0; i < pad; i++) w.writeU8(0);
  const { timestamps: ts, values: vs } = s;
  w.writeBytes(new Uint8Array(ts.buffer, ts.byteOffset + from * 8, (to - from) * 8));
  w.writeBytes(new Uint8Array(vs.buffer, vs.byteOffset + from * 8, (to - from) * 8));
}

/**
 * SeriesAssembler turns the SERIES frame bodies of one call back into SeriesSamples. Throws
 * RpcProtocolError for bytes that do not decode (the connection is then unusable).
 */
export class SeriesAssembler {
  #labels: Label[] | undefined;
  #ts: Float64Array[] = [];
  #vs: Float64Array[] = [];
  #n = 0;

  /** push takes one frame body; returns the series it completes, or undefined while FLAG_MORE. */
  push(body: Buffer): SeriesSamples | undefined {
    if (body.length < 1) throw new RpcProtocolError('empty SERIES frame');
    const r = reader(body, 'SERIES frame');
    const flags = r.readU8();
    if ((flags & ~FLAG_MORE) !== 0) throw new RpcProtocolError(`unknown SERIES flags 0x${flags.toString(16)}`);
    const labels = readLabels(r);
    const n = readCount(r, 'sample', SAMPLE_BYTES);
    if (n === 0) throw new RpcProtocolError('SERIES frame without samples');
    const pad = r.readU8();
    if (pad > 7) throw new RpcProtocolError(`SERIES frame padding ${pad} is over 7 bytes`);
    r.readBytes(pad);
    const ts = column(r.readBytes(n * 8));
    const vs = column(r.readBytes(n * 8));
    expectEnd(r);
    if (this.#labels === undefined) this.#labels = labels;
    else if (!sameLabels(this.#labels, labels)) throw new RpcProtocolError('SERIES frames of one series carry different labels');
    if (!(flags & FLAG_MORE) && this.#ts.length === 0) {
      this.#labels = undefined;
      return { labels, timestamps: ts, values: vs };
    }
    this.#ts.push(ts);
    this.#vs.push(vs);
    this.#n += n;
    if (flags & FLAG_MORE) return undefined;
    const out: SeriesSamples = { labels: this.#labels, timestamps: join(this.#ts, this.#n), values: join(this.#vs, this.#n) };
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

// column returns the doubles in bytes: a view of them when they are 8-aligned in their buffer
// (the received bytes are not reused, and each series' view covers its own bytes only), else a copy.
function column(bytes: Uint8Array): Float64Array {
  if ((bytes.byteOffset & 7) === 0) return new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8);
  const out = new Float64Array(bytes.length / 8);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

function sameLabels(a: readonly Label[], b: readonly Label[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.name !== b[i]!.name || a[i]!.value !== b[i]!.value) return false;
  return true;
}

// join concatenates typed arrays with set() (a byte copy: NaN payloads survive).
function join(parts: Float64Array[], n: number): Float64Array {
  const out = new Float64Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
