import { crc32 } from 'node:zlib';
import type { Tenant } from '../../storageapi/api.ts';
import { ByteWriter } from '../../bytes/index.ts';
import { CorruptDataError } from '../common/errors.ts';

// WAL records (FORMAT.md "Write-ahead log"): u32 payload length, u32 CRC-32 of the payload,
// payload. The payload starts with a type byte and three zero bytes. Sample arrays sit at
// 8-byte aligned offsets of a record built in its own ArrayBuffer, so the write path fills them in
// place as Float64Arrays, with no copy and no per-sample object; staleness markers stay bit-exact.

export const REC_SERIES = 1;
export const REC_SAMPLES = 2;
export const REC_DELETE = 3;

/** RECORD_HEADER_BYTES precede every payload (length and CRC). */
export const RECORD_HEADER_BYTES = 8;

/** WalRecord is one decoded WAL record. */
export type WalRecord =
  | { readonly type: 'series'; readonly tenant: Tenant; readonly id: number; readonly labelsKey: string }
  | { readonly type: 'samples'; readonly ids: Float64Array; readonly timestamps: Float64Array; readonly values: Float64Array }
  | { readonly type: 'delete'; readonly tenant: Tenant; readonly ids: Float64Array };

/**
 * SamplesRecord is a samples record being filled by the write path: ids, timestamps and values
 * are views into the record's own buffer, room for `capacity` rows. Reusable: after seal(n) and
 * the write of its bytes, filling the arrays again starts the next record.
 */
export class SamplesRecord {
  readonly capacity: number;
  readonly buffer: ArrayBuffer;
  readonly ids: Float64Array;
  readonly timestamps: Float64Array;
  readonly values: Float64Array;

  constructor(capacity: number) {
    this.capacity = capacity;
    this.buffer = new ArrayBuffer(16 + 24 * capacity);
    this.ids = new Float64Array(this.buffer, 16, capacity);
    this.timestamps = new Float64Array(this.buffer, 16 + 8 * capacity, capacity);
    this.values = new Float64Array(this.buffer, 16 + 16 * capacity, capacity);
  }

  /**
   * seal returns the record bytes for the first n rows (moving the arrays together when fewer
   * than capacity rows were filled) with length and CRC filled in. The timestamps of the record
   * are then at sealedTimestamps(n) and values at sealedValues(n), until the arrays are refilled.
   */
  seal(n: number): Uint8Array {
    const bytes = new Uint8Array(this.buffer);
    if (n < this.capacity) {
      bytes.copyWithin(16 + 8 * n, 16 + 8 * this.capacity, 16 + 8 * this.capacity + 8 * n);
      bytes.copyWithin(16 + 16 * n, 16 + 16 * this.capacity, 16 + 16 * this.capacity + 8 * n);
    }
    const total = 16 + 24 * n;
    const view = new DataView(this.buffer);
    view.setUint32(0, total - RECORD_HEADER_BYTES, true);
    view.setUint8(8, REC_SAMPLES);
    view.setUint32(12, n, true);
    const out = bytes.subarray(0, total);
    view.setUint32(4, crc32(out.subarray(RECORD_HEADER_BYTES)), true);
    return out;
  }

  /** sealedTimestamps returns the timestamps of a record sealed with n rows. */
  sealedTimestamps(n: number): Float64Array {
    return new Float64Array(this.buffer, 16 + 8 * n, n);
  }

  /** sealedValues returns the values of a record sealed with n rows. */
  sealedValues(n: number): Float64Array {
    return new Float64Array(this.buffer, 16 + 16 * n, n);
  }
}

function frame(w: ByteWriter, start: number): void {
  const len = w.pos - start - RECORD_HEADER_BYTES;
  const b = w.buf;
  b.writeUInt32LE(len, start);
  b.writeUInt32LE(crc32(b.subarray(start + RECORD_HEADER_BYTES, w.pos)), start + 4);
}

/** appendSeriesRecord appends a series-creation record to w. */
export function appendSeriesRecord(w: ByteWriter, tenant: Tenant, id: number, labelsKey: string): void {
  const start = w.pos;
  w.writeU32(0);
  w.writeU32(0);
  w.writeU32(REC_SERIES);
  w.writeU32(tenant.accountID);
  w.writeU32(tenant.projectID);
  w.writeF64(id);
  w.writeU32(labelsKey.length);
  w.writeLatin1(labelsKey);
  frame(w, start);
}

/** appendDeleteRecord appends a deletion record for ids of tenant to w. */
export function appendDeleteRecord(w: ByteWriter, tenant: Tenant, ids: ArrayLike<number>): void {
  const start = w.pos;
  w.writeU32(0);
  w.writeU32(0);
  w.writeU32(REC_DELETE);
  w.writeU32(tenant.accountID);
  w.writeU32(tenant.projectID);
  w.writeU32(ids.length);
  for (let i = 0; i < ids.length; i++) w.writeF64(ids[i]!);
  frame(w, start);
}

function f64s(payload: Uint8Array, off: number, n: number): Float64Array {
  // Copy into an aligned buffer: the payload may sit at any offset of the file buffer.
  const out = new Float64Array(n);
  new Uint8Array(out.buffer).set(payload.subarray(off, off + 8 * n));
  return out;
}

/** decodeRecord decodes one verified payload. Throws CorruptDataError naming `what`. */
export function decodeRecord(payload: Uint8Array, what: string): WalRecord {
  const fail = (why: string): never => {
    throw new CorruptDataError(`cannot decode ${what}: ${why}`);
  };
  if (payload.length < 4) fail('payload shorter than its type');
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const type = payload[0];
  if (type === REC_SAMPLES) {
    if (payload.length < 8) fail('samples record without a count');
    const n = view.getUint32(4, true);
    if (payload.length !== 8 + 24 * n) fail(`samples record of ${payload.length} bytes for ${n} rows`);
    return { type: 'samples', ids: f64s(payload, 8, n), timestamps: f64s(payload, 8 + 8 * n, n), values: f64s(payload, 8 + 16 * n, n) };
  }
  if (type === REC_SERIES) {
    if (payload.length < 24) fail('series record too short');
    const tenant = { accountID: view.getUint32(4, true), projectID: view.getUint32(8, true) };
    const id = view.getFloat64(12, true);
    const len = view.getUint32(20, true);
    if (payload.length !== 24 + len) fail(`series record of ${payload.length} bytes with labels of ${len}`);
    if (!Number.isSafeInteger(id) || id <= 0) fail(`bad series id ${id}`);
    return { type: 'series', tenant, id, labelsKey: Buffer.from(payload.buffer, payload.byteOffset + 24, len).toString('latin1') };
  }
  if (type === REC_DELETE) {
    if (payload.length < 16) fail('delete record too short');
    const tenant = { accountID: view.getUint32(4, true), projectID: view.getUint32(8, true) };
    const n = view.getUint32(12, true);
    if (payload.length !== 16 + 8 * n) fail(`delete record of ${payload.length} bytes for ${n} ids`);
    return { type: 'delete', tenant, ids: f64s(payload, 16, n) };
  }
  return fail(`unknown record type ${String(type)}`);
}
