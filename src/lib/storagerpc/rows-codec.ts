// The addRows payload (FORMAT.md, "addRows") and the per-connection series dictionary behind it.
//
// Each connection of the insert service carries a dictionary of label sets, numbered 0, 1, 2, … in
// the order the client first sent them. A row names its series by number; the first row of a new
// series carries its labels inline and defines the next number. So a series costs its labels once
// per connection, and a row costs 17 bytes and no label decoding on the node, which hands the
// batch to the engine in columns (addKeyedRows, with the dictionary as its key table). Both sides
// count the dictionary's size the same way (ENTRY_OVERHEAD + encoded label bytes per entry); the
// client starts a fresh one (the reset flag) before it would outgrow the node's announced budget.

import type { ByteReader } from '../bytes/index.ts';
import { ByteWriter } from '../bytes/index.ts';
import type { KeyedRows, KeyTable } from '../storage/index.ts';
import type { Labels, MetricRow, Tenant } from '../storageapi/api.ts';
import { ownString, SeriesKeyTable } from '../protoparser/common/series-keys.ts';
import { RpcProtocolError, readLabels, readTenant, writeLabels, writeTenant } from './codec.ts';

/** ENTRY_OVERHEAD is what a dictionary entry counts besides its encoded labels. */
export const ENTRY_OVERHEAD = 64;
/** FLAG_RESET: the node drops its dictionary before reading the rows of this frame. */
export const FLAG_RESET = 1;
/** MAX_TABLES bounds the key tables encodeKeyed remembers numbers for. */
const MAX_TABLES = 8;
/** SAMPLE_BYTES is a row's share of the two columns: timestamp and value, f64 each. */
const SAMPLE_BYTES = 16;

// The columns are copied between Float64Arrays and the wire as bytes: the wire is little-endian.
if (new Uint8Array(new Float64Array([1]).buffer)[7] !== 0x3f) throw new Error('storagerpc needs a little-endian host');

/**
 * ClientDictionary is the client side of one connection's dictionary: label sets it has sent,
 * found by the row's rawKey, else by their encoded bytes. Strings are copied, so the dictionary
 * never keeps a request body alive.
 */
export class ClientDictionary {
  readonly maxBytes: number;
  #byRaw = new Map<string, number>();
  #byBytes = new Map<string, number>();
  #size = 0;
  #bytes = 0;
  #resetPending = false;
  // Per key table of encodeKeyed: its key numbers' dictionary numbers.
  #ids = new Map<KeyTable, Int32Array>();
  // The scratch's labels as a string (the #byBytes key), set by #lookup.
  #bytesKey = '';
  /** resets counts how often the dictionary started over. */
  resets = 0;
  readonly #scratch = new ByteWriter(1024);
  // Column scratch of encode (copied into the frame before it returns).
  #ts = new Float64Array(1024);
  #values = new Float64Array(1024);

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get size(): number {
    return this.#size;
  }

  /**
   * encode writes rows[from…] into frame w (after the CALL header), stopping before the frame
   * would pass maxFrameBytes or the dictionary its budget; returns the index of the first row not
   * written. Writes at least one row (labels too big for the budget alone are a RangeError).
   */
  encode(w: ByteWriter, tenant: Tenant, rows: readonly MetricRow[], from: number, maxFrameBytes: number): number {
    const flagsAt = this.#header(w, tenant);
    const room = rows.length - from;
    if (this.#ts.length < room) {
      this.#ts = new Float64Array(room);
      this.#values = new Float64Array(room);
    }
    const ts = this.#ts;
    const values = this.#values;
    let lastLabels: Labels | undefined;
    let lastKey = -1;
    let n = 0;
    for (let i = from; i < rows.length; i++, n++) {
      const row = rows[i]!;
      let key = row.labels === lastLabels ? lastKey : row.rawKey !== undefined ? (this.#byRaw.get(row.rawKey) ?? -1) : -1;
      if (key < 0) key = this.#lookup(row.labels);
      // Room for this row's key (a varint of at most 8 bytes), labels and both columns.
      if (n > 0 && w.pos + 8 + (key < 0 ? this.#scratch.pos : 0) + (n + 1) * SAMPLE_BYTES > maxFrameBytes) break;
      if (key >= 0) w.writeUvarint(key);
      else if ((key = this.#define(w, flagsAt, n)) < 0) break;
      if (row.rawKey !== undefined && !this.#byRaw.has(row.rawKey)) this.#byRaw.set(ownString(row.rawKey), key);
      ts[n] = row.timestamp;
      values[n] = row.value;
      lastLabels = row.labels;
      lastKey = key;
    }
    w.buf.writeUInt32LE(n, flagsAt + 1);
    // Columns as raw little-endian doubles: copied, never converted, so NaN payloads survive.
    w.writeBytes(new Uint8Array(ts.buffer, 0, n * 8));
    w.writeBytes(new Uint8Array(values.buffer, 0, n * 8));
    return from + n;
  }

  /**
   * encodeKeyed is encode for rows in columns (b.keys number series in b.table): the same frame,
   * with the dictionary numbers of b.table's keys remembered per table object, so a row whose
   * series this connection has seen costs one array lookup and its columns are copied as bytes.
   */
  encodeKeyed(w: ByteWriter, tenant: Tenant, b: KeyedRows, from: number, maxFrameBytes: number): number {
    const flagsAt = this.#header(w, tenant);
    const { keys, table } = b;
    let ids = this.#idsOf(table);
    let n = 0;
    for (let i = from; i < b.length; i++, n++) {
      const k = keys[i]!;
      let key = ids[k]!;
      if (key < 0) key = this.#lookup(table.labels[k]!);
      if (n > 0 && w.pos + 8 + (key < 0 ? this.#scratch.pos : 0) + (n + 1) * SAMPLE_BYTES > maxFrameBytes) break;
      if (key >= 0) {
        w.writeUvarint(key);
      } else {
        const resets = this.resets;
        if ((key = this.#define(w, flagsAt, n)) < 0) break;
        if (this.resets !== resets) ids = this.#idsOf(table); // the dictionary started over: so did its numbers
      }
      ids[k] = key;
    }
    w.buf.writeUInt32LE(n, flagsAt + 1);
    const at = (a: Float64Array) => new Uint8Array(a.buffer, a.byteOffset + from * 8, n * 8);
    w.writeBytes(at(b.timestamps));
    w.writeBytes(at(b.values));
    return from + n;
  }

  // header writes the tenant, the flags byte and a row count to patch (at the returned offset + 1).
  #header(w: ByteWriter, tenant: Tenant): number {
    writeTenant(w, tenant);
    const flagsAt = w.pos;
    w.writeU8(0);
    w.writeU32(0); // row count, patched by the caller (fixed width: known only at the end)
    if (this.#resetPending) this.#reset(w, flagsAt);
    return flagsAt;
  }

  // lookup encodes labels into the scratch writer and returns their dictionary number, or -1 when
  // the dictionary does not hold them yet (the scratch then holds the bytes #define sends).
  #lookup(labels: Labels): number {
    const s = this.#scratch;
    s.reset();
    writeLabels(s, labels);
    this.#bytesKey = s.buf.toString('latin1', 0, s.pos);
    return this.#byBytes.get(this.#bytesKey) ?? -1;
  }

  // define numbers the labels #lookup left in the scratch and writes number and labels; returns -1 when
  // the dictionary is full and the frame already holds n > 0 rows (the next frame starts afresh).
  #define(w: ByteWriter, flagsAt: number, n: number): number {
    const defined = this.#scratch.bytes();
    const entry = ENTRY_OVERHEAD + defined.length;
    if (this.#bytes + entry > this.maxBytes) {
      if (entry > this.maxBytes) throw new RangeError(`the labels of one row take ${entry} bytes, above the node's series dictionary budget of ${this.maxBytes}`);
      if (n > 0) {
        this.#resetPending = true;
        return -1;
      }
      this.#reset(w, flagsAt);
    }
    const key = this.#size++;
    this.#bytes += entry;
    this.#byBytes.set(this.#bytesKey, key);
    w.writeUvarint(key);
    w.writeBytes(defined);
    return key;
  }

  // idsOf returns table's key number → dictionary number array (-1: not known), grown to the
  // table's size. A few tables are remembered (parsers start new ones rarely); past that all are dropped.
  #idsOf(table: KeyTable): Int32Array {
    let ids = this.#ids.get(table);
    const size = table.labels.length;
    if (ids !== undefined && ids.length >= size) return ids;
    const grown = new Int32Array(Math.max(size, 2 * (ids?.length ?? 0), 64)).fill(-1);
    if (ids !== undefined) grown.set(ids);
    else if (this.#ids.size >= MAX_TABLES) this.#ids.clear();
    this.#ids.set(table, grown);
    return grown;
  }

  /** forceReset makes the next frame start a fresh dictionary (after a frame that was built but not sent). */
  forceReset(): void {
    this.#resetPending = true;
  }

  #reset(w: ByteWriter, flagsAt: number): void {
    w.buf[flagsAt] = FLAG_RESET;
    this.#byRaw = new Map();
    this.#byBytes = new Map();
    this.#ids = new Map();
    this.#size = 0;
    this.#bytes = 0;
    this.#resetPending = false;
    this.resets++;
  }
}

/** KeyedBatch is a decoded addRows frame: the tenant and its rows in columns over the connection's table. */
export interface KeyedBatch {
  readonly tenant: Tenant;
  readonly rows: KeyedRows;
}

/**
 * ServerDictionary is the node side of one connection's dictionary. Its table only grows (the
 * engine caches key number → series per table object); a reset starts a new table, which calls
 * still running keep using.
 */
export class ServerDictionary {
  readonly maxBytes: number;
  table = new SeriesKeyTable();
  #bytes = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** decode reads an addRows body, defining the label sets it carries. Throws RpcProtocolError or CorruptDataError. */
  decode(r: ByteReader): KeyedBatch {
    const tenant = readTenant(r);
    const flags = r.readU8();
    if ((flags & ~FLAG_RESET) !== 0) throw new RpcProtocolError(`unknown addRows flags 0x${flags.toString(16)}`);
    const n = r.readU32();
    if (n * (1 + SAMPLE_BYTES) > r.remaining()) throw new RpcProtocolError(`row count ${n} does not fit the ${r.remaining()} bytes left of ${r.what}`);
    if (flags & FLAG_RESET) {
      this.table = new SeriesKeyTable();
      this.#bytes = 0;
    }
    const table = this.table;
    const keys = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const key = r.readUvarint();
      const size = table.labels.length;
      if (key === size) {
        const start = r.pos;
        const labels = readLabels(r);
        this.#bytes += ENTRY_OVERHEAD + (r.pos - start);
        if (this.#bytes > this.maxBytes) throw new RpcProtocolError(`the series dictionary grew past its budget of ${this.maxBytes} bytes`);
        table.labels.push(labels);
        table.rawKeys.push('');
      } else if (key > size) {
        throw new RpcProtocolError(`row ${i} names series ${key}, but the dictionary has ${size}`);
      }
      keys[i] = key;
    }
    const timestamps = new Float64Array(n);
    const values = new Float64Array(n);
    new Uint8Array(timestamps.buffer).set(r.readBytes(n * 8));
    new Uint8Array(values.buffer).set(r.readBytes(n * 8));
    return { tenant, rows: { length: n, keys, timestamps, values, table } };
  }
}

/** keyedToRows materialises a decoded batch as MetricRows, for an Inserter without addKeyedRows. */
export function keyedToRows(b: KeyedRows): MetricRow[] {
  const rows: MetricRow[] = new Array(b.length);
  for (let i = 0; i < b.length; i++) rows[i] = { labels: b.table.labels[b.keys[i]!]!, timestamp: b.timestamps[i]!, value: b.values[i]! };
  return rows;
}
