import zlib from 'node:zlib';
import { BodyTooLargeError, ParseError, UnsupportedEncodingError } from '../common/parse-error.ts';
import { decodeSnappyBlock, readBody, type ByteSource } from '../common/stream.ts';

/** RemoteWriteBodyOptions bound what a remote-write request may cost. */
export interface RemoteWriteBodyOptions {
  /** Content-Encoding header; absent means snappy, as the remote-write spec requires. */
  readonly contentEncoding?: string | undefined;
  /** Limit on the request body as sent (compressed). */
  readonly maxBodyBytes: number;
  /** Limit on the decoded protobuf. */
  readonly maxDecodedBytes: number;
}

const ENCODINGS = ['snappy', 'zstd', 'gzip', 'deflate', 'identity'];

/**
 * readRemoteWriteBody reads a whole remote-write body and returns the decoded WriteRequest bytes
 * for parse(). Snappy is the protocol's encoding; zstd, gzip and deflate are accepted because
 * some agents send them. Throws BodyTooLargeError, UnsupportedEncodingError or ParseError.
 */
export async function readRemoteWriteBody(source: ByteSource, opts: RemoteWriteBodyOptions): Promise<Buffer> {
  const enc = (opts.contentEncoding ?? '').trim().toLowerCase() || 'snappy';
  if (!ENCODINGS.includes(enc)) throw new UnsupportedEncodingError(enc, ENCODINGS);
  const body = await readBody(source, opts.maxBodyBytes);
  if (enc === 'snappy') return decodeSnappyBlock(body, opts.maxDecodedBytes);
  if (enc === 'identity') {
    if (body.length > opts.maxDecodedBytes) throw new BodyTooLargeError('decompressed request body', opts.maxDecodedBytes);
    return body;
  }
  const o = { maxOutputLength: Math.max(1, opts.maxDecodedBytes) };
  try {
    if (enc === 'zstd') return zlib.zstdDecompressSync(body, o);
    if (enc === 'gzip') return zlib.gunzipSync(body, o);
    return zlib.inflateSync(body, o);
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new BodyTooLargeError('decompressed request body', opts.maxDecodedBytes);
    throw new ParseError(`cannot decode ${enc} body: ${(err as Error).message}`, {}, { cause: err });
  }
}
