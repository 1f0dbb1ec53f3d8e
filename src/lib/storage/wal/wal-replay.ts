import { readFileSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { CorruptDataError, errorMessage } from '../common/errors.ts';
import type { StorageLogger } from '../common/logger.ts';
import { listSegments, segmentName } from './wal.ts';
import { RECORD_HEADER_BYTES, decodeRecord, type WalRecord } from './wal-record.ts';

/** MAX_RECORD_BYTES bounds one record; a larger length field means a damaged header. */
export const MAX_RECORD_BYTES = 1 << 30;

/** SegmentScan is what parseSegment found in one segment's bytes. */
export interface SegmentScan {
  readonly records: WalRecord[];
  /** validBytes is the length of the prefix made of whole, intact records. */
  readonly validBytes: number;
  /** damage describes why parsing stopped before the end, if it did. */
  readonly damage?: string;
}

/**
 * parseSegment decodes the records of one segment. It stops at the first record that is cut
 * short or fails its CRC (a crash mid-write leaves exactly that at the tail) and reports how many
 * bytes were good. Pure.
 */
export function parseSegment(buf: Uint8Array, what: string): SegmentScan {
  const records: WalRecord[] = [];
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let pos = 0;
  while (pos < buf.length) {
    if (buf.length - pos < RECORD_HEADER_BYTES) return { records, validBytes: pos, damage: `truncated record header at byte ${pos}` };
    const len = view.getUint32(pos, true);
    const sum = view.getUint32(pos + 4, true);
    if (len > MAX_RECORD_BYTES) return { records, validBytes: pos, damage: `record length ${len} at byte ${pos}` };
    const end = pos + RECORD_HEADER_BYTES + len;
    if (end > buf.length) return { records, validBytes: pos, damage: `truncated record at byte ${pos}` };
    const payload = buf.subarray(pos + RECORD_HEADER_BYTES, end);
    if (crc32(payload) !== sum) return { records, validBytes: pos, damage: `checksum mismatch at byte ${pos}` };
    try {
      records.push(decodeRecord(payload, `record at byte ${pos} of ${what}`));
    } catch (err) {
      if (!(err instanceof CorruptDataError)) throw err;
      return { records, validBytes: pos, damage: err.message };
    }
    pos = end;
  }
  return { records, validBytes: pos };
}

/** ReplayResult summarises a WAL replay. */
export interface ReplayResult {
  readonly segments: number;
  readonly records: number;
  readonly lastSeq: number;
}

/**
 * replayWal feeds every intact record of every segment in dir, oldest first, to onRecord. A
 * damaged tail is cut off the segment (so later appends never follow garbage) and logged;
 * the records before it are kept. Segments are read one at a time.
 */
export function replayWal(dir: string, logger: StorageLogger, onRecord: (r: WalRecord) => void): ReplayResult {
  const segs = listSegments(dir);
  let records = 0;
  for (const seq of segs) {
    const path = join(dir, segmentName(seq));
    let buf: Buffer;
    try {
      buf = readFileSync(path);
    } catch (err) {
      throw new Error(`cannot read WAL segment "${path}": ${errorMessage(err)}`, { cause: err });
    }
    const scan = parseSegment(buf, `WAL segment "${path}"`);
    if (scan.damage !== undefined) {
      const last = seq === segs.at(-1);
      // A torn last record is the normal trace of a crash; damage elsewhere is worth an error.
      (last ? logger.warn : logger.error).call(logger, { path, validBytes: scan.validBytes, size: buf.length, damage: scan.damage }, 'dropping the damaged tail of a WAL segment');
      truncateSync(path, scan.validBytes);
    }
    for (const r of scan.records) onRecord(r);
    records += scan.records.length;
  }
  return { segments: segs.length, records, lastSeq: segs.at(-1) ?? 0 };
}
