import { type ServerResponse } from 'node:http';
import { type Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { downstreamResponseHeaders } from './headers.ts';
import { ReadBufferRelease } from './read-buffers.ts';
import { BodyRelay } from './request-body.ts';

/** ForwardRequest is one attempt to send a client's request to a backend. */
export interface ForwardRequest {
  /** path is the upstream path with its query string ("/api/v1/query?query=up"). */
  readonly path: string;
  readonly method: string;
  /** headers is the flat [name, value, ...] list to send (see upstreamRequestHeaders). */
  readonly headers: string[];
  /**
   * body is null (none), a Buffer (replayable) or the client's stream (single use; never destroyed
   * here: an attempt that ends before the body did leaves the rest of it unread in the stream).
   */
  readonly body: Buffer | Readable | null;
  /** timeoutMs bounds the wait for response headers and for each response body chunk (-responseTimeout). */
  readonly timeoutMs: number;
  /** windowBytes caps response bytes buffered for a slow client before the backend is paused (default 256 KiB). */
  readonly windowBytes?: number;
}

/**
 * ForwardResult says how an attempt ended: `responded` once the backend's status line reached the
 * client (the response may still have been cut short, which `error` then tells; a backend may
 * answer before it has read the whole body); `failed` when the backend failed before any response
 * byte was sent to the client, with `bodyStarted` (bytes of a stream body were taken from the
 * client, so it cannot be sent again) and `requestSent` (the whole request reached the backend);
 * `client-gone` when the client disconnected first (the upstream request was aborted).
 */
export type ForwardResult =
  | { readonly kind: 'responded'; readonly status: number; readonly error: Error | undefined }
  | { readonly kind: 'failed'; readonly error: Error; readonly bodyStarted: boolean; readonly requestSent: boolean }
  | { readonly kind: 'client-gone' };

/** ClientGoneError aborts an upstream request whose client disconnected. */
export class ClientGoneError extends Error {
  constructor() {
    super('client closed the connection');
    this.name = 'ClientGoneError';
  }
}

type Resolve = (r: ForwardResult) => void;

// Response chunks arriving in the same event-loop turn are written together (one writev), up to
// FLUSH_BYTES: fewer, larger socket writes cost far less per byte than one per 32 KiB read, and a
// chunk never waits longer than the current turn. The backend is paused while more than the
// request's windowBytes wait for the client socket, so a slow client never makes the proxy
// buffer a body.
const FLUSH_BYTES = 128 * 1024;

/** DEFAULT_WINDOW_BYTES is the response bytes buffered per request before the backend is paused. */
export const DEFAULT_WINDOW_BYTES = 256 * 1024;

// One object per attempt implements undici's handler interface and streams the response into the
// Node response with backpressure.
class ForwardHandler implements Dispatcher.DispatchHandler {
  readonly #res: ServerResponse;
  readonly #resolve: Resolve;
  readonly #relay: BodyRelay | undefined;
  #requestSent = false;
  #controller: Dispatcher.DispatchController | undefined;
  #status = 0;
  #settled = false;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #flushScheduled = false;
  #paused = false;
  readonly #window: number;
  readonly #buffers = new ReadBufferRelease();

  constructor(res: ServerResponse, resolve: Resolve, windowBytes: number, relay: BodyRelay | undefined) {
    this.#res = res;
    this.#resolve = resolve;
    this.#window = windowBytes;
    this.#relay = relay;
  }

  /** clientGone aborts the upstream request (now, or as soon as it is dispatched). */
  clientGone = (): void => {
    if (this.#settled || this.#res.writableFinished) return;
    this.#controller?.abort(new ClientGoneError());
    if (this.#controller === undefined) this.#settle({ kind: 'client-gone' });
  };

  #onDrain = (): void => {
    this.#paused = false;
    this.#controller?.resume();
  };

  #flushSoon = (): void => {
    this.#flushScheduled = false;
    if (this.#pendingBytes > 0 && !this.#settled) this.#flush();
  };

  #flush(): void {
    const res = this.#res;
    const pending = this.#pending;
    // The last write's callback tells that the client socket took every chunk of this flush.
    const done = this.#buffers.holds ? this.#writtenCallback(this.#buffers.wrote()) : undefined;
    if (pending.length === 1) {
      res.write(pending[0], done);
    } else {
      res.cork();
      const last = pending.length - 1;
      for (let i = 0; i < last; i++) res.write(pending[i]);
      res.write(pending[last], done);
      res.uncork();
    }
    this.#pending = [];
    this.#pendingBytes = 0;
  }

  #writtenCallback(seq: number): (err?: Error | null) => void {
    const buffers = this.#buffers;
    return (err) => {
      if (err == null) buffers.written(seq);
      else buffers.abandon();
    };
  }

  #settle(r: ForwardResult): void {
    if (this.#settled) return;
    this.#settled = true;
    // undici destroys the relay itself when it is done with the body; an attempt settled first
    // (the client left before dispatch) must not keep it attached to the client's stream.
    this.#relay?.destroy();
    this.#res.removeListener('close', this.clientGone);
    this.#resolve(r);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#settled) controller.abort(new ClientGoneError());
  }

  onRequestSent(): void {
    this.#requestSent = true;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // 1xx: informational, the final response follows
    this.#status = statusCode;
    this.#res.writeHead(statusCode, downstreamResponseHeaders(headers));
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#buffers.chunk(chunk);
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.length;
    if (this.#pendingBytes >= FLUSH_BYTES || this.#pendingBytes >= this.#window) this.#flush();
    else if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(this.#flushSoon);
    }
    // Pause only while the socket owes a 'drain' event, which is what resumes the backend.
    const res = this.#res;
    if (!this.#paused && res.writableNeedDrain && res.writableLength + this.#pendingBytes > this.#window) {
      this.#paused = true;
      controller.pause();
      res.once('drain', this.#onDrain);
    }
  }

  onResponseEnd(): void {
    const res = this.#res;
    // 'finish': every chunk reached the client socket and the parser is done with this response.
    if (this.#buffers.holds) res.once('finish', this.#buffers.ended);
    if (this.#pending.length === 1) res.end(this.#pending[0]);
    else {
      if (this.#pendingBytes > 0) this.#flush();
      res.end();
    }
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#settle({ kind: 'responded', status: this.#status, error: undefined });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#buffers.abandon();
    this.#pending = [];
    this.#pendingBytes = 0;
    if (error instanceof ClientGoneError || this.#res.destroyed) {
      this.#settle({ kind: 'client-gone' });
      return;
    }
    if (this.#status === 0) {
      this.#settle({ kind: 'failed', error, bodyStarted: this.#relay?.started ?? false, requestSent: this.#requestSent });
      return;
    }
    // Headers are out: the only honest signal left is cutting the client connection.
    this.#res.destroy(error);
    this.#settle({ kind: 'responded', status: this.#status, error });
  }
}

/**
 * forward sends req to dispatcher (an undici Pool for one backend) and streams the response into
 * res without buffering it. It never rejects. When the client disconnects, the upstream request
 * is aborted. res must not have been written to; after a `failed` result it is still untouched.
 */
export function forward(dispatcher: Dispatcher, req: ForwardRequest, res: ServerResponse): Promise<ForwardResult> {
  return new Promise<ForwardResult>((resolve) => {
    const relay = req.body === null || Buffer.isBuffer(req.body) ? undefined : new BodyRelay(req.body);
    const handler = new ForwardHandler(res, resolve, req.windowBytes ?? DEFAULT_WINDOW_BYTES, relay);
    res.once('close', handler.clientGone);
    try {
      dispatcher.dispatch({
        path: req.path, method: req.method, headers: req.headers, body: relay ?? req.body,
        headersTimeout: req.timeoutMs, bodyTimeout: req.timeoutMs,
      }, handler);
    } catch (err) {
      handler.onResponseError(undefined as unknown as Dispatcher.DispatchController, err as Error);
    }
  });
}
