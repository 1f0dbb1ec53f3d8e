// One RPC call on the node: its abort signal (client CANCEL, deadline, shutdown, lost connection),
// its stream credit, and the frame that ends it (RESULT or ERROR, or nothing once cancelled).

import type { ByteWriter } from '../bytes/index.ts';
import type { SeriesBlocks } from '../storage/series-blocks.ts';
import { RpcCallError, writeError } from './errors-codec.ts';
import { E_TIMEOUT, finishFrame, newFrame, T_ERROR, T_RESULT, T_SERIES } from './frame.ts';
import { seriesFrameBodies } from './series-codec.ts';

/** CallTransport is what a call needs from its connection. */
export interface CallTransport {
  send(frame: Buffer): void;
  /** writable resolves once the socket takes more bytes (rejects with signal's reason on abort). */
  writable(signal: AbortSignal): Promise<void>;
}

/** CANCELED is the abort reason of a call the client cancelled (nothing more is sent for it). */
export const CANCELED = new RpcCallError(0, 'the client cancelled the call');

export class ServerCall {
  readonly id: number;
  readonly method: number;
  readonly started = performance.now();
  readonly #conn: CallTransport;
  readonly #ac = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #credit = 0;
  #wake: (() => void) | undefined;
  #finished = false;

  constructor(conn: CallTransport, id: number, method: number, timeoutMs: number) {
    this.#conn = conn;
    this.id = id;
    this.method = method;
    if (timeoutMs > 0) {
      this.#timer = setTimeout(() => this.abort(new RpcCallError(E_TIMEOUT, `the call did not finish within its ${timeoutMs} ms on the node`)), timeoutMs);
      this.#timer.unref();
    }
  }

  get signal(): AbortSignal {
    return this.#ac.signal;
  }

  get finished(): boolean {
    return this.#finished;
  }

  abort(reason: Error): void {
    if (this.#ac.signal.aborted) return;
    this.#ac.abort(reason);
    this.#wake?.();
  }

  /** addCredit grants the stream more bytes (a CREDIT frame). */
  addCredit(bytes: number): void {
    this.#credit += bytes;
    this.#wake?.();
  }

  /** sendSeries streams one series, waiting for credit and for the socket before each frame. */
  async sendSeries(s: SeriesBlocks): Promise<void> {
    const bodies: [(w: ByteWriter) => void, number][] = [];
    seriesFrameBodies(s, (body, size) => bodies.push([body, size]));
    for (const [body, size] of bodies) {
      while (this.#credit <= 0) await this.#waitCredit();
      await this.#conn.writable(this.signal);
      this.signal.throwIfAborted();
      const w = newFrame(T_SERIES, this.id, size);
      body(w);
      const frame = finishFrame(w);
      this.#credit -= frame.length;
      this.#conn.send(frame);
    }
  }

  #waitCredit(): Promise<void> {
    this.signal.throwIfAborted();
    return new Promise((resolve) => {
      this.#wake = () => {
        this.#wake = undefined;
        resolve();
      };
    });
  }

  /** result sends the RESULT frame with the body write appends, and ends the call. */
  result(write?: (w: ByteWriter) => void): void {
    if (this.#finished) return;
    let frame: Buffer;
    try {
      const w = newFrame(T_RESULT, this.id);
      write?.(w);
      frame = finishFrame(w);
    } catch (err) {
      // A result that cannot be encoded (a storage bug) is reported as the call's error.
      this.fail(err);
      return;
    }
    if (this.#end()) this.#conn.send(frame);
  }

  /**
   * fail ends the call with an ERROR frame. When the call was aborted, the abort's reason is sent
   * (the node's own timeout or shutdown), not the AbortError the engine threw for it; a call the
   * client cancelled gets nothing.
   */
  fail(err: unknown): void {
    if (!this.#end()) return;
    const reason: unknown = this.signal.aborted ? this.signal.reason : err;
    if (reason === CANCELED) return;
    const w = newFrame(T_ERROR, this.id);
    writeError(w, reason);
    this.#conn.send(finishFrame(w));
  }

  /** cancelled: the client gave up on the call. */
  get cancelled(): boolean {
    return this.signal.aborted && this.signal.reason === CANCELED;
  }

  #end(): boolean {
    if (this.#finished) return false;
    this.#finished = true;
    clearTimeout(this.#timer);
    return !this.cancelled;
  }
}
