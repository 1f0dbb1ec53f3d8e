// LineSplitter turns a stream of byte chunks into blocks of whole lines. Lines split across chunks
// are joined; a line longer than maxLineLength is dropped (reported as a "tooLong" event) without
// ever buffering more than maxLineLength bytes of it. Text blocks always end at a line boundary, so
// a UTF-8 character is never cut in two.

const NL = 10;
const QUOTE = 34;

/**
 * SplitEvent is a block of complete lines (decoded as UTF-8, or as bytes with the `bytes` option)
 * or one dropped long line.
 */
export type SplitEvent =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'bytes'; readonly bytes: Buffer }
  | { readonly kind: 'tooLong'; readonly length: number; readonly lines: number };

export interface LineSplitterOptions {
  /** Longest accepted line in bytes, without its "\n". */
  readonly maxLineLength: number;
  /**
   * quoteAware makes "\n" inside double quotes part of the record (CSV). A record that is too long
   * is dropped up to its end, so an unbalanced quote drops the rest of the input as one record.
   */
  readonly quoteAware?: boolean;
  /**
   * bytes emits blocks as 'bytes' events, not decoded. A block may share memory with the pushed
   * chunk: use it before pushing the next one.
   */
  readonly bytes?: boolean;
}

/**
 * LineSplitter is a push parser: feed chunks with push(), call end() once at the end of input.
 * Not safe for concurrent use (one splitter per request).
 */
export class LineSplitter {
  readonly #max: number;
  readonly #quoteAware: boolean;
  readonly #bytes: boolean;
  #tail: Buffer[] = [];
  #tailLen = 0;
  #tailLines = 0; // quoted newlines inside the tail (quote-aware mode)
  #inQuote = false;
  #discarding = false;
  #discarded = 0;

  constructor(opts: LineSplitterOptions) {
    if (!(opts.maxLineLength > 0)) throw new RangeError(`maxLineLength must be positive; got ${opts.maxLineLength}`);
    this.#max = opts.maxLineLength;
    this.#quoteAware = opts.quoteAware === true;
    this.#bytes = opts.bytes === true;
  }

  // block emits buf[from, to) (whole lines) as text or bytes.
  #block(out: SplitEvent[], buf: Buffer, from: number, to: number): void {
    out.push(this.#bytes ? { kind: 'bytes', bytes: buf.subarray(from, to) } : { kind: 'text', text: buf.toString('utf8', from, to) });
  }

  /** push consumes one chunk and appends the resulting events to out. */
  push(chunk: Uint8Array, out: SplitEvent[]): void {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let i = 0;
    if (this.#discarding) {
      // A dropped record still ends where a kept one would (outside quotes when quote-aware), so
      // the result does not depend on how the body was cut into chunks.
      const nb = this.#nextBoundary(buf, 0);
      if (nb < 0) {
        this.#discarded += buf.length;
        return;
      }
      out.push({ kind: 'tooLong', length: this.#discarded + nb, lines: 1 + this.#tailLines });
      this.#discarding = false;
      this.#tailLines = 0;
      i = nb + 1;
    }
    if (this.#tailLen > 0) i = this.#finishTailRecord(buf, i, out);
    if (i < 0) return;
    if (this.#quoteAware) this.#quotedRegion(buf, i, out);
    else this.#plainRegion(buf, i, out);
  }

  /** end flushes the last line (input need not end with "\n"). */
  end(out: SplitEvent[]): void {
    if (this.#discarding) {
      out.push({ kind: 'tooLong', length: this.#discarded, lines: 1 + this.#tailLines });
    } else if (this.#tailLen > 0) {
      const all = Buffer.concat(this.#tail, this.#tailLen);
      this.#block(out, all, 0, all.length);
    }
    this.#reset();
  }

  #reset(): void {
    this.#tail = [];
    this.#tailLen = 0;
    this.#tailLines = 0;
    this.#inQuote = false;
    this.#discarding = false;
    this.#discarded = 0;
  }

  // The tail is the start of a record; find where it ends in buf. Returns the index after the
  // record, or -1 when buf ended inside the record.
  #finishTailRecord(buf: Buffer, from: number, out: SplitEvent[]): number {
    const nb = this.#nextBoundary(buf, from);
    if (nb < 0) {
      this.#keepTail(buf.subarray(from));
      return -1;
    }
    const len = this.#tailLen + nb - from;
    if (len > this.#max) {
      out.push({ kind: 'tooLong', length: len, lines: 1 + this.#tailLines });
    } else {
      this.#tail.push(buf.subarray(from, nb + 1));
      const all = Buffer.concat(this.#tail, len + 1);
      this.#block(out, all, 0, all.length);
    }
    this.#tail = [];
    this.#tailLen = 0;
    this.#tailLines = 0;
    return nb + 1;
  }

  // nextBoundary finds the next record end at or after from, tracking quote state.
  #nextBoundary(buf: Buffer, from: number): number {
    if (!this.#quoteAware) return buf.indexOf(NL, from);
    for (let j = from; j < buf.length; j++) {
      const b = buf[j];
      if (b === QUOTE) this.#inQuote = !this.#inQuote;
      else if (b === NL) {
        if (!this.#inQuote) return j;
        this.#tailLines++;
      }
    }
    return -1;
  }

  // keepTail keeps the start of an unfinished record (already scanned by #nextBoundary), or starts
  // dropping the record when it is already too long.
  #keepTail(rest: Buffer): void {
    if (rest.length === 0) return;
    if (this.#tailLen + rest.length > this.#max) {
      this.#discarding = true;
      this.#discarded = this.#tailLen + rest.length;
      this.#tail = [];
      this.#tailLen = 0;
      return;
    }
    // Copy: the caller may reuse the chunk's memory after push returns.
    this.#tail.push(Buffer.from(rest));
    this.#tailLen += rest.length;
  }

  #plainRegion(buf: Buffer, from: number, out: SplitEvent[]): void {
    const last = buf.lastIndexOf(NL);
    if (last < from) {
      this.#keepTail(buf.subarray(from));
      return;
    }
    if (last + 1 - from <= this.#max + 1) {
      this.#block(out, buf, from, last + 1);
    } else {
      // The region could hold a line longer than the limit; only now look at each line.
      let good = from;
      for (let p = from; p <= last; ) {
        const nl = buf.indexOf(NL, p);
        if (nl - p > this.#max) {
          if (p > good) this.#block(out, buf, good, p);
          out.push({ kind: 'tooLong', length: nl - p, lines: 1 });
          good = nl + 1;
        }
        p = nl + 1;
      }
      if (good <= last) this.#block(out, buf, good, last + 1);
    }
    this.#keepTail(buf.subarray(last + 1));
  }

  #quotedRegion(buf: Buffer, from: number, out: SplitEvent[]): void {
    let good = from;
    let rec = from;
    for (;;) {
      const nb = this.#nextBoundary(buf, rec);
      if (nb < 0) break;
      if (nb - rec > this.#max) {
        if (rec > good) this.#block(out, buf, good, rec);
        out.push({ kind: 'tooLong', length: nb - rec, lines: 1 + this.#tailLines });
        good = nb + 1;
      }
      this.#tailLines = 0;
      rec = nb + 1;
    }
    if (rec > good) this.#block(out, buf, good, rec);
    // #nextBoundary already counted the quoted newlines of the unfinished record into #tailLines.
    this.#keepTail(buf.subarray(rec));
  }
}
