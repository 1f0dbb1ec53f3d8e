import type { KeyedColumns } from '../common/keyed-columns.ts';
import { isLineFailure } from '../common/line-failure.ts';
import { ErrorSummary } from '../common/parse-error.ts';
import { canonicalLabels, type Label } from '../common/row.ts';
import type { SeriesKeyDictionary } from '../common/series-keys.ts';
import type { MetadataSink } from '../common/metadata.ts';
import { metadataField, newStats, readLabel, readSample, type RemoteWriteStats, type SampleOut } from './parse.ts';
import { ProtoReader, WIRE_LEN } from './proto.ts';

/** KeyedRemoteWriteOptions configure a KeyedRemoteWriteParser. */
export interface KeyedRemoteWriteOptions {
  /** keys numbers label sets by their encoded bytes; new ones are added. */
  readonly keys: SeriesKeyDictionary;
  /** out receives the samples; its table must be keys.table while parsing. */
  readonly out: KeyedColumns;
  /** onMetadata receives the request's metadata entries; absent, they are skipped and counted. */
  readonly onMetadata?: MetadataSink | undefined;
}

/**
 * KeyedRemoteWriteParser decodes a WriteRequest like seriesRowsOf (parse.ts), but appends samples
 * to a KeyedColumns batch as key numbers of a SeriesKeyDictionary: a series whose label bytes were
 * seen before (predicted from the previous series, or looked up by bytes) costs no label decoding
 * and no row objects. Rows, their order, errors and stats are those of seriesRowsOf; the rawKey of
 * a row is the series' label bytes as a latin1 string (also when its labels are not contiguous in
 * the message, where seriesRowsOf gives none). Call parse(limit) until it returns true, handing
 * the batch on whenever it stops early. A structural error throws ParseError; the series before
 * it are in the batch.
 */
export class KeyedRemoteWriteParser {
  readonly #r: ProtoReader;
  // A DataView of the body, for SeriesKeyDictionary.bytesAt.
  #view: DataView;
  readonly #keys: SeriesKeyDictionary;
  readonly #out: KeyedColumns;
  readonly #onMetadata: MetadataSink | undefined;
  /** stats and errors are filled as series are read. */
  readonly stats: RemoteWriteStats = newStats();
  readonly errors = new ErrorSummary();
  #index = 0;
  // Offsets of the current series' Sample messages (reused).
  #samples = new Int32Array(64);

  constructor(body: Uint8Array, o: KeyedRemoteWriteOptions) {
    this.#r = new ProtoReader(body);
    this.#view = new DataView(body.buffer, body.byteOffset, body.byteLength);
    this.#keys = o.keys;
    this.#out = o.out;
    this.#onMetadata = o.onMetadata;
  }

  /**
   * copyBody makes the parser read from its own copy of the body from now on, so the caller may
   * reuse the buffer it passed (e.g. before waiting between two parse calls).
   */
  copyBody(): void {
    const r = this.#r;
    const { pos, end } = r;
    const copy = Buffer.from(r.buf);
    r.reset(copy, r.what);
    r.pos = pos;
    r.end = end;
    this.#view = new DataView(copy.buffer, copy.byteOffset, copy.byteLength);
  }

  /**
   * parse reads series until the batch holds at least `limit` rows or the message ends; returns
   * whether it ended. The batch's table must be the dictionary's current table.
   */
  parse(limit: number): boolean {
    if (this.#out.table !== this.#keys.table) throw new Error('cannot parse into a batch of another key table: clear the batch with the dictionary\'s current table first');
    const r = this.#r;
    while (r.pos < r.end) {
      if (this.#out.length >= limit) return false;
      const tag = r.uint32();
      const field = tag >>> 3;
      const wt = tag & 7;
      if (field === 1 && wt === WIRE_LEN) {
        const end = r.len();
        this.#series(end);
      } else if (field === 3 && wt === WIRE_LEN) {
        metadataField(r, this.stats, this.#onMetadata);
      } else {
        r.skip(wt);
      }
    }
    return true;
  }

  #series(end: number): void {
    const r = this.#r;
    const seriesStart = r.pos;
    const outerEnd = r.end;
    r.end = end;
    let keyStart = -1;
    let keyEnd = -1;
    let contiguous = true;
    let n = 0;
    // Senders repeat their series in order, labels first: when the series starts with the bytes of
    // the key predicted from the previous one, they are whole label fields (they were parsed when
    // the key was added), so the walk below starts after them. The key holds if no other label
    // field follows (checked as usual: one right after extends keyEnd, a later one is scattered).
    const predicted = this.#keys.predict(this.#out.lastKey);
    const predictedBytes = predicted >= 0 ? this.#keys.keyBytes(predicted) : undefined;
    let predictedEnd = -1;
    if (predictedBytes !== undefined && predictedBytes.length <= end - seriesStart && this.#keys.bytesAt(predicted, r.buf, this.#view, seriesStart)) {
      keyStart = seriesStart;
      keyEnd = predictedEnd = r.pos = seriesStart + predictedBytes.length;
    }
    while (r.pos < end) {
      const tagStart = r.pos;
      const tag = r.uint32();
      const field = tag >>> 3;
      const wt = tag & 7;
      if (field === 1 && wt === WIRE_LEN) {
        r.pos = r.len();
        if (keyStart < 0) keyStart = tagStart;
        else if (tagStart !== keyEnd) contiguous = false;
        keyEnd = r.pos;
      } else if (field === 2 && wt === WIRE_LEN) {
        if (n === this.#samples.length) this.#growSamples();
        this.#samples[n++] = tagStart;
        r.pos = r.len();
      } else {
        if (field === 3 && wt === WIRE_LEN) this.stats.ignoredExemplars++;
        if (field === 4 && wt === WIRE_LEN) this.stats.ignoredHistograms++;
        r.skip(wt);
      }
    }
    r.end = outerEnd;
    const index = this.#index++;
    // Labels are decoded (when new) before the series counts, as seriesRowsOf decodes them while
    // scanning: a broken one fails the request at the same point. Samples or not.
    let k = -1;
    if (n === 0 && keyStart >= 0) readLabels(r.buf, seriesStart, end);
    else if (keyStart >= 0 && contiguous && keyEnd === predictedEnd) k = predicted;
    else if (keyStart >= 0) k = contiguous ? this.#keyOf(keyStart, keyEnd) : this.#scatteredKey(seriesStart, end);
    else this.#reason = 'series has no labels';
    this.stats.timeseries++;
    if (n > 0 && k < 0) this.errors.add(`${this.#reason}; ${n} samples dropped`, { item: `timeseries[${index}]` });
    else if (n > 0) this.#samplesOf(k, n);
    r.pos = end;
  }

  // samplesOf appends the n samples of the current series as key k; all or none of them.
  #samplesOf(k: number, n: number): void {
    const r = this.#r;
    const out = this.#out;
    const prev = out.lastKey;
    const before = out.length;
    try {
      for (let i = 0; i < n; i++) {
        r.pos = this.#samples[i]!;
        r.uint32(); // the tag, checked above
        this.#sample(r.len(), k);
      }
    } catch (e) {
      out.length = before;
      out.lastKey = prev;
      throw e;
    }
    this.#keys.follow(prev, k);
    this.stats.samples += n;
  }

  // keyOf returns the key of the label bytes [start, end), -1 for a set seriesRowsOf skips.
  #keyOf(start: number, end: number): number {
    const keys = this.#keys;
    const b = this.#r.buf;
    const predicted = keys.predict(this.#out.lastKey);
    if (predicted >= 0 && keys.keyBytes(predicted)?.length === end - start && keys.bytesAt(predicted, b, this.#view, start)) return predicted;
    const latin1 = b.toString('latin1', start, end);
    const k = keys.getBytes(latin1);
    return k >= 0 ? k : this.#newKey(b.subarray(start, end), latin1, () => readLabels(b, start, end));
  }

  // scatteredKey handles labels with other fields between them: their bytes, joined in order,
  // spell the same set as a contiguous encoding would.
  #scatteredKey(seriesStart: number, end: number): number {
    const r = this.#r;
    const parts: Buffer[] = [];
    r.pos = seriesStart;
    const outerEnd = r.end;
    r.end = end;
    while (r.pos < end) {
      const tagStart = r.pos;
      const tag = r.uint32();
      if (tag >>> 3 === 1 && (tag & 7) === WIRE_LEN) {
        r.pos = r.len();
        parts.push(r.buf.subarray(tagStart, r.pos));
      } else r.skip(tag & 7);
    }
    r.end = outerEnd;
    const joined = Buffer.concat(parts);
    const latin1 = joined.toString('latin1');
    const k = this.#keys.getBytes(latin1);
    return k >= 0 ? k : this.#newKey(joined, latin1, () => readLabels(r.buf, seriesStart, end));
  }

  // newKey decodes (in place, so errors name offsets in the body) and checks the labels of a set
  // seen for the first time.
  #newKey(bytes: Buffer, latin1: string, decode: () => Label[]): number {
    let labels: Label[];
    try {
      labels = canonicalLabels(decode(), 'reject');
    } catch (e) {
      if (!isLineFailure(e)) throw e;
      this.#reason = e.reason;
      return -1;
    }
    if (labels.length === 0) {
      this.#reason = 'series has no labels';
      return -1;
    }
    const k = this.#keys.add(latin1, labels);
    this.#keys.addBytes(latin1, bytes, k);
    return k;
  }

  // Why the last label set was refused.
  #reason = '';

  readonly #s: SampleOut = new Float64Array(2);

  #sample(end: number, k: number): void {
    readSample(this.#r, end, this.#s);
    this.#out.pushRow(k, this.#s);
  }

  #growSamples(): void {
    const next = new Int32Array(this.#samples.length * 2);
    next.set(this.#samples);
    this.#samples = next;
  }
}

// readLabels decodes the Label fields in b[start, end) (other fields skipped), in order; throws
// ParseError for broken protobuf.
function readLabels(b: Buffer, start: number, end: number): Label[] {
  const r = new ProtoReader(b, start, end);
  const labels: Label[] = [];
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag >>> 3 === 1 && (tag & 7) === WIRE_LEN) {
      const lEnd = r.len();
      labels.push(readLabel(r, lEnd));
    } else r.skip(tag & 7);
  }
  return labels;
}
