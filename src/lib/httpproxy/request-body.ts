import { type IncomingMessage } from 'node:http';
import { type Readable } from 'node:stream';

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
