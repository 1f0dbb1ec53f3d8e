// Snappy block decoding (the remote-write body encoding), in JS into a caller's buffer.
//
// Why not the `snappy` package's uncompressSync: it cost 250–500 µs per 131 KB remote-write body
// (a fresh native buffer per call; ~0.3–0.5 GB/s even for literal-only blocks), 0.25–0.45 CPU-s
// per 1M rows of the bench's remote write alone. This loop, writing into a reused buffer, took
// 8–23 µs on the same literal-only bodies and 116–185 µs on them Snappy-compressed (bench/RESULTS.md,
// "Issue 18, fourth session"). The package still compresses (encode.ts) and is
// the reference the fuzz test checks this decoder against.
//
// Format (github.com/google/snappy/blob/main/format_description.txt): a varint of the decoded
// length, then elements whose tag's low two bits say: 0 literal (length in the tag's upper six
// bits, or in the next 1–4 bytes when those say 60–63), 1 copy with a 3-bit length and an 11-bit
// offset, 2 copy with a 6-bit length and a 16-bit offset, 4 copy with a 32-bit offset. A copy may
// overlap its own output (offset < length repeats a pattern).

import { BodyTooLargeError, ParseError } from './parse-error.ts';

/**
 * snappyDecodedLength returns the decoded length a Snappy block's header announces. Throws
 * ParseError for a truncated or over-long header, BodyTooLargeError past maxDecodedBytes.
 */
export function snappyDecodedLength(block: Uint8Array, maxDecodedBytes: number): number {
  const n = readHeader(block);
  if (n > maxDecodedBytes) throw new BodyTooLargeError('decompressed request body', maxDecodedBytes);
  return n;
}

/**
 * decodeSnappyInto decodes a Snappy block into out[0, n) (n = snappyDecodedLength, and out at
 * least that long) and returns n. Throws ParseError naming the byte of the block where the
 * encoding is broken: a truncated element, a copy reaching before the start, output longer or
 * shorter than the header says.
 */
export function decodeSnappyInto(block: Uint8Array, out: Uint8Array): number {
  const n = readHeader(block);
  if (out.length < n) throw new RangeError(`cannot decode a snappy block of ${n} bytes into ${out.length}`);
  let pos = 0;
  while (block[pos++]! >= 0x80); // past the header readHeader checked
  const end = block.length;
  let op = 0;
  while (pos < end) {
    const at = pos;
    const tag = block[pos++]!;
    const kind = tag & 3;
    if (kind === 0) {
      let len = tag >>> 2;
      if (len >= 60) {
        const extra = len - 59;
        if (extra > end - pos) throw broken('truncated literal length', at);
        len = block[pos]!;
        if (extra > 1) len |= block[pos + 1]! << 8;
        if (extra > 2) len |= block[pos + 2]! << 16;
        if (extra > 3) len += block[pos + 3]! * 16_777_216;
        pos += extra;
      }
      len += 1;
      if (len > end - pos) throw broken('truncated literal', at);
      if (len > n - op) throw broken('literal past the decoded length', at);
      // Short literals are cheaper copied here than through a native set().
      if (len < 16) for (let i = 0; i < len; i++) out[op + i] = block[pos + i]!;
      else out.set(block.subarray(pos, pos + len), op);
      pos += len;
      op += len;
      continue;
    }
    let len: number;
    let off: number;
    if (kind === 1) {
      if (pos >= end) throw broken('truncated copy', at);
      len = ((tag >>> 2) & 7) + 4;
      off = ((tag >>> 5) << 8) | block[pos++]!;
    } else if (kind === 2) {
      if (2 > end - pos) throw broken('truncated copy', at);
      len = (tag >>> 2) + 1;
      off = block[pos]! | (block[pos + 1]! << 8);
      pos += 2;
    } else {
      if (4 > end - pos) throw broken('truncated copy', at);
      len = (tag >>> 2) + 1;
      off = (block[pos]! | (block[pos + 1]! << 8) | (block[pos + 2]! << 16)) + block[pos + 3]! * 16_777_216;
      pos += 4;
    }
    if (off === 0 || off > op) throw broken(`copy offset ${off} outside the ${op} bytes decoded`, at);
    if (len > n - op) throw broken('copy past the decoded length', at);
    if (off >= len && len >= 16) out.copyWithin(op, op - off, op - off + len);
    else for (let i = 0; i < len; i++) out[op + i] = out[op - off + i]!; // may overlap: byte by byte
    op += len;
  }
  if (op !== n) throw broken(`decoded ${op} bytes, the header says ${n}`, end);
  return n;
}

function readHeader(block: Uint8Array): number {
  let n = 0;
  let shift = 1;
  for (let i = 0; i < 5; i++) {
    if (i >= block.length) throw new ParseError('truncated snappy block header', { offset: i });
    const b = block[i]!;
    n += (b & 0x7f) * shift;
    shift *= 128;
    if (b < 0x80) {
      if (n > 0xffff_ffff) break;
      return n;
    }
  }
  throw new ParseError('invalid snappy block header', { offset: 0 });
}

function broken(reason: string, at: number): ParseError {
  return new ParseError(`cannot decompress snappy block: ${reason}`, { offset: at });
}
