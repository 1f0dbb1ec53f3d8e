// Framing of the storage node RPC (FORMAT.md, "Storage node RPC"): every message is one frame,
//
//   u32 length (little-endian, bytes after this field) | u8 type | uvarint requestId | body
//
// This file holds the protocol's numbers (frame types, services, methods, error kinds), the frame
// encoder and the push decoder that cuts a byte stream into frames.

import { ByteWriter } from '../bytes/index.ts';
import { RpcProtocolError } from './codec.ts';

/** MAGIC opens the HELLO body: "STRP". */
export const MAGIC = 'STRP';
/** PROTOCOL_VERSION is the newest version this code speaks; MIN_PROTOCOL_VERSION the oldest. */
// Version 2: searchSeries ships the node's stored blocks (FORMAT.md); version 1 shipped native
// export blocks, which the node had to decode and re-encode. No node or client speaks both.
export const PROTOCOL_VERSION = 2;
export const MIN_PROTOCOL_VERSION = 2;

/** Services: which port a client believes it dialed (checked in the handshake). */
export const SERVICE_INSERT = 1;
export const SERVICE_SELECT = 2;
export const SERVICE_NAMES: Readonly<Record<number, string>> = { [SERVICE_INSERT]: 'insert', [SERVICE_SELECT]: 'select' };

/** Frame types: client to server below 0x80, server to client from 0x80. */
export const T_HELLO = 0x01;
export const T_CALL = 0x02;
export const T_CANCEL = 0x03;
export const T_CREDIT = 0x04;
export const T_HELLO_OK = 0x81;
export const T_RESULT = 0x82;
export const T_ERROR = 0x83;
export const T_SERIES = 0x84;

/** Methods (one namespace for both services; each port serves its own). */
export const M_ADD_ROWS = 1;
export const M_SEARCH_SERIES = 2;
export const M_SEARCH_LABEL_SETS = 3;
export const M_LABEL_NAMES = 4;
export const M_LABEL_VALUES = 5;
export const M_SERIES_COUNT = 6;
export const M_TSDB_STATUS = 7;
export const M_DELETE_SERIES = 8;
export const M_LIST_TENANTS = 9;
export const METHOD_NAMES: Readonly<Record<number, string>> = {
  [M_ADD_ROWS]: 'addRows',
  [M_SEARCH_SERIES]: 'searchSeries',
  [M_SEARCH_LABEL_SETS]: 'searchLabelSets',
  [M_LABEL_NAMES]: 'labelNames',
  [M_LABEL_VALUES]: 'labelValues',
  [M_SERIES_COUNT]: 'seriesCount',
  [M_TSDB_STATUS]: 'tsdbStatus',
  [M_DELETE_SERIES]: 'deleteSeries',
  [M_LIST_TENANTS]: 'listTenants',
};

/** Error kinds of an ERROR frame. */
export const E_ERROR = 1;
export const E_LIMIT_EXCEEDED = 2;
export const E_MATCHER = 3;
export const E_BAD_REQUEST = 4;
export const E_UNAVAILABLE = 5;
export const E_TIMEOUT = 6;
export const E_PROTOCOL = 7;

/** FRAME_HEADER_BYTES is the length field. */
export const FRAME_HEADER_BYTES = 4;
/** MAX_FRAME_BYTES is the largest frame either side ever accepts (64 MiB). */
export const MAX_FRAME_BYTES = 64 * 2 ** 20;

/**
 * newFrame starts a frame of `type` for request `id` in a fresh writer (frames are handed to the
 * socket and must not be overwritten afterwards). Append the body, then call finishFrame.
 */
export function newFrame(type: number, id: number, bodyBytes = 64): ByteWriter {
  const w = new ByteWriter(FRAME_HEADER_BYTES + 12 + bodyBytes);
  w.writeU32(0);
  w.writeU8(type);
  w.writeUvarint(id);
  return w;
}

/** finishFrame fills in the length field and returns the frame's bytes. */
export function finishFrame(w: ByteWriter): Buffer {
  w.buf.writeUInt32LE(w.pos - FRAME_HEADER_BYTES, 0);
  return w.buf.subarray(0, w.pos);
}

/** Frame is one decoded frame: the body is buf[bodyStart, buf.length), valid only during the callback. */
export interface Frame {
  readonly type: number;
  readonly id: number;
  readonly buf: Buffer;
  readonly bodyStart: number;
  /** size is the frame's length on the wire, header included. */
  readonly size: number;
}

/**
 * FrameDecoder cuts a byte stream into frames. A frame longer than maxFrameBytes is refused from
 * its length field on, before any of it is buffered. A frame that fits one chunk is a view of it
 * (no copy); a frame spread over chunks is copied once, when its last byte has arrived. After an
 * error the decoder refuses further input.
 */
export class FrameDecoder {
  /** maxFrameBytes may be raised once the peer is known (after the handshake). */
  maxFrameBytes: number;
  #chunks: Buffer[] = [];
  #len = 0;
  #need = FRAME_HEADER_BYTES;
  #failed: RpcProtocolError | undefined;

  constructor(maxFrameBytes: number) {
    this.maxFrameBytes = maxFrameBytes;
  }

  /** buffered is the number of bytes held for a frame not yet complete. */
  get buffered(): number {
    return this.#len;
  }

  /**
   * push consumes a chunk and calls onFrame for every frame it completes, in order; onFrame
   * returning false stops decoding (bytes after that frame stay buffered for the next push).
   * Throws RpcProtocolError.
   */
  push(chunk: Buffer, onFrame: (f: Frame) => boolean | void): void {
    if (this.#failed) throw this.#failed;
    this.#chunks.push(chunk);
    this.#len += chunk.length;
    if (this.#len < this.#need) return;
    const buf = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#len);
    this.#chunks = [];
    this.#len = 0;
    this.#need = FRAME_HEADER_BYTES;
    let pos = 0;
    try {
      while (buf.length - pos >= FRAME_HEADER_BYTES) {
        const len = buf.readUInt32LE(pos);
        if (len < 2 || len > this.maxFrameBytes) throw new RpcProtocolError(`frame length ${len} is outside 2..${this.maxFrameBytes}`);
        if (buf.length - pos - FRAME_HEADER_BYTES < len) {
          this.#need = FRAME_HEADER_BYTES + len;
          break;
        }
        const start = pos + FRAME_HEADER_BYTES;
        const end = start + len;
        const frame = buf.subarray(start, end);
        pos = end;
        const { id, next } = readFrameId(frame);
        if (onFrame({ type: frame[0]!, id, buf: frame, bodyStart: next, size: FRAME_HEADER_BYTES + len }) === false) break;
      }
    } catch (err) {
      if (err instanceof RpcProtocolError) this.#failed = err;
      throw err;
    }
    if (pos < buf.length) {
      this.#chunks.push(buf.subarray(pos));
      this.#len = buf.length - pos;
    }
  }
}

// readFrameId reads the uvarint request id after the type byte (at most 8 bytes: ids are below 2^53).
function readFrameId(frame: Buffer): { id: number; next: number } {
  let id = 0;
  let mul = 1;
  for (let p = 1; p < frame.length && p <= 8; p++) {
    const c = frame[p]!;
    id += (c & 0x7f) * mul;
    if (c < 0x80) return { id, next: p + 1 };
    mul *= 128;
  }
  throw new RpcProtocolError(`frame of type 0x${frame[0]!.toString(16)} has a truncated or overlong request id`);
}
