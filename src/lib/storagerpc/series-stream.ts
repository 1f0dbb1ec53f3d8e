// The client side of a searchSeries stream: series are decoded as their frames arrive and queued;
// the consumer taking them gives the node credit for more. So the client holds at most the
// window (plus the series in assembly) however large the result, and a consumer that stops
// pulling stops the node. Leaving the loop early, aborting the signal or waiting longer than the
// timeout for the next series cancels the call on the node.

import type { SearchQuery, SeriesSamples } from '../storageapi/api.ts';
import { NodeUnavailableError } from '../storageapi/errors.ts';
import type { ClientConnection, Pending } from './client-connection.ts';
import { expectEnd, reader, RpcProtocolError, writeSearchQuery } from './codec.ts';
import type { Frame } from './frame.ts';
import { readError } from './errors-codec.ts';
import { M_SEARCH_SERIES, T_ERROR, T_RESULT } from './frame.ts';
import { FLAG_MORE, SeriesAssembler } from './series-codec.ts';

/** STREAM_WINDOW_BYTES is the credit a stream starts with; half of it is granted again as series are taken. */
export const STREAM_WINDOW_BYTES = 2 * 2 ** 20;

interface Queued {
  readonly series: SeriesSamples;
  readonly bytes: number;
}

/** SeriesStream is one searchSeries call in flight. */
export class SeriesStream implements Pending {
  readonly #conn: ClientConnection;
  readonly #signal: AbortSignal;
  readonly #timeoutMs: number;
  readonly #id: number;
  readonly #assembler = new SeriesAssembler();
  readonly #queue: Queued[] = [];
  #head = 0;
  #received = 0;
  #consumed = 0;
  #done = false;
  #error: unknown;
  #wake: (() => void) | undefined;

  constructor(conn: ClientConnection, q: SearchQuery, signal: AbortSignal, timeoutMs: number) {
    this.#conn = conn;
    this.#signal = signal;
    this.#timeoutMs = timeoutMs;
    // No deadline on the node: a stream may legitimately run long; the client cancels a stalled one.
    this.#id = conn.startCall(M_SEARCH_SERIES, 0, (w) => {
      writeSearchQuery(w, q);
      w.writeUvarint(STREAM_WINDOW_BYTES);
    }, this);
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  onFrame(f: Frame): void {
    if (f.type === T_ERROR) return this.#finish(readError(reader(f.buf, 'searchSeries error', f.bodyStart), this.#conn.address));
    if (f.type === T_RESULT) {
      const r = reader(f.buf, 'searchSeries result', f.bodyStart);
      const n = r.readUvarint();
      expectEnd(r);
      if (this.#assembler.pending) throw new RpcProtocolError('the stream ended inside a series');
      if (n !== this.#received) throw new RpcProtocolError(`the node says it sent ${n} series, ${this.#received} arrived`);
      return this.#finish(undefined);
    }
    const body = f.buf.subarray(f.bodyStart);
    const s = this.#assembler.push(body);
    if (s === undefined) {
      // A series longer than the window arrives in several frames: the parts in assembly are not
      // waiting for the consumer, so their credit comes back at once (else both sides would wait).
      if (body[0]! & FLAG_MORE) this.#grant(f.size);
      return;
    }
    this.#received++;
    if (s === null) return this.#grant(f.size); // nothing of it in the range once decoded
    this.#queue.push({ series: s, bytes: f.size });
    this.#wake?.();
  }

  onClose(err: NodeUnavailableError): void {
    this.#finish(err);
  }

  /** next returns the next series, or undefined at the end. Throws what ended the stream. */
  async next(): Promise<SeriesSamples | undefined> {
    for (;;) {
      if (this.#signal.aborted) throw this.#signal.reason;
      if (this.#head < this.#queue.length) {
        const q = this.#queue[this.#head]!;
        this.#queue[this.#head++] = undefined!;
        if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
          this.#queue.splice(0, this.#head);
          this.#head = 0;
        }
        this.#grant(q.bytes);
        return q.series;
      }
      if (this.#error !== undefined) throw this.#error;
      if (this.#done) return undefined;
      await this.#wait();
    }
  }

  /** close ends the stream from the consumer's side: cancels it on the node unless it ended. */
  close(): void {
    this.#signal.removeEventListener('abort', this.#onAbort);
    if (!this.#done) {
      this.#done = true;
      this.#conn.cancel(this.#id);
    }
  }

  #wait(): Promise<void> {
    const started = performance.now();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#conn.cancel(this.#id);
        const err = new NodeUnavailableError(this.#conn.address, `storage node "${this.#conn.address}" sent nothing for searchSeries within ${this.#timeoutMs} ms`);
        this.#finish(err);
        this.#conn.timedOut(started);
      }, this.#timeoutMs);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
    });
  }

  #grant(bytes: number): void {
    this.#consumed += bytes;
    if (this.#consumed < STREAM_WINDOW_BYTES / 2 || this.#done) return;
    this.#conn.credit(this.#id, this.#consumed);
    this.#consumed = 0;
  }

  #finish(err: unknown): void {
    if (this.#done && err === undefined) return;
    this.#done = true;
    if (err !== undefined && this.#error === undefined) this.#error = err;
    this.#signal.removeEventListener('abort', this.#onAbort);
    this.#wake?.();
  }

  readonly #onAbort = () => {
    this.#conn.cancel(this.#id);
    this.#finish(this.#signal.reason);
  };
}

/** streamSeries yields the series of one SeriesStream, cancelling it when the consumer stops early. */
export async function* streamSeries(stream: SeriesStream): AsyncGenerator<SeriesSamples> {
  try {
    for (;;) {
      const s = await stream.next();
      if (s === undefined) return;
      yield s;
    }
  } finally {
    stream.close();
  }
}
