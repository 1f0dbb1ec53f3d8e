import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';

/** RequestBody is what will be sent upstream: nothing, a replayable buffer, or the one-shot client stream. */
export type RequestBody =
  | { readonly kind: 'none' }
  | { readonly kind: 'buffered'; readonly data: Buffer }
  | { readonly kind: 'stream'; readonly stream: Readable };

const NONE: RequestBody = { kind: 'none' };

/** BodyReadError: the client's body could not be read (disconnect, or more bytes than announced). */
export class BodyReadError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'BodyReadError';
  }
}

/**
 * prepareRequestBody decides how to forward req's body. Bodies announced by Content-Length of at
 * most maxBufferedBytes are read into memory so they can be replayed on another backend
 * (-maxRequestBodySizeToRetry); larger or chunked bodies are streamed through as they arrive.
 * Resolves `none` when the request has no body.
 */
export async function prepareRequestBody(req: IncomingMessage, maxBufferedBytes: number): Promise<RequestBody> {
  const te = req.headers['transfer-encoding'];
  const cl = req.headers['content-length'];
  if (te === undefined && (cl === undefined || cl === '0')) return NONE;
  const length = te === undefined ? Number(cl) : -1;
  if (length < 0 || length > maxBufferedBytes) return { kind: 'stream', stream: req };
  return { kind: 'buffered', data: await readAll(req, length) };
}

function readAll(req: IncomingMessage, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      chunks.push(c);
      size += c.length;
    };
    const cleanup = () => {
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
      req.removeListener('close', onClose);
    };
    const onEnd = () => {
      cleanup();
      if (size !== length) reject(new BodyReadError(`request body has ${size} bytes, Content-Length said ${length}`));
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(new BodyReadError(`cannot read request body: ${err.message}`, { cause: err }));
    };
    const onClose = () => {
      if (req.complete) return;
      cleanup();
      reject(new BodyReadError('cannot read request body: client closed the connection'));
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onClose);
  });
}

/**
 * BodyRelay hands one upstream attempt the client's body stream without handing over the stream
 * itself. undici destroys the body it was given when an attempt ends before the body was sent (the
 * backend answered early, or failed), and a destroyed server request stops its connection from
 * reading for good: the client's upload stalls and the connection holds up shutdown. The relay is
 * destroyed instead, leaving the client's stream paused for the caller to drain or retry. It starts
 * reading the client's stream on the attempt's first read, so an attempt that fails before sending
 * any of the body leaves the body unread (`started` false) and retryable.
 */
export class BodyRelay extends Readable {
  readonly #src: Readable;
  #started = false;

  constructor(src: Readable) {
    super();
    this.#src = src;
  }

  /** started: the relay has taken bytes (or the end) from the client's stream. */
  get started(): boolean {
    return this.#started;
  }

  override _read(): void {
    if (!this.#started) {
      this.#started = true;
      const src = this.#src;
      src.on('data', this.#onData);
      src.once('end', this.#onEnd);
      src.once('error', this.#onError);
      src.once('close', this.#onClose);
    }
    this.#src.resume();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    const src = this.#src;
    src.removeListener('data', this.#onData);
    src.removeListener('end', this.#onEnd);
    src.removeListener('error', this.#onError);
    src.removeListener('close', this.#onClose);
    if (!src.destroyed) src.pause();
    cb(err);
  }

  #onData = (chunk: Buffer): void => {
    if (!this.push(chunk)) this.#src.pause();
  };

  #onEnd = (): void => {
    this.push(null);
  };

  #onError = (err: Error): void => {
    this.destroy(new BodyReadError(`cannot read request body: ${err.message}`, { cause: err }));
  };

  #onClose = (): void => {
    if (!this.#src.readableEnded) this.destroy(new BodyReadError('cannot read request body: client closed the connection'));
  };
}

/**
 * discardRestOfBody reads and drops what the client still sends of a body no backend will get (it
 * was answered before the body ended), so the client finishes its upload, reads the answer and may
 * reuse the connection, as Node does for a body nobody read.
 */
export function discardRestOfBody(req: IncomingMessage): void {
  if (!req.complete && !req.destroyed) req.resume();
}
