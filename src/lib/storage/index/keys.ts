import type { Label, Labels, Tenant } from '../../storageapi/api.ts';
import { CorruptDataError } from '../common/errors.ts';

// Index items are byte strings held in JS as "binary" strings: one char per byte (0..255), so
// JS string comparison is byte order and items sort, compare and slice natively. Text (names and
// values) is UTF-8 with bytes 0x00 and 0x01 escaped (0x00 -> 01 01, 0x01 -> 01 02) and ends with
// a 0x00 terminator; the escape keeps byte order, and the terminator sorts before every other
// byte, so "a" sorts before "ab" and a prefix scan for a name never runs into a longer name.
// Item layouts are in FORMAT.md ("Index items").

/** Item kinds: the first byte of every index item. */
export const KIND_SERIES_BY_LABELS = '\x01';
export const KIND_LABELS_BY_SERIES = '\x02';
export const KIND_DAY_LABEL = '\x03';
export const KIND_DAY_SERIES = '\x04';
export const KIND_DELETED = '\x05';

const PLAIN = /^[\x02-\x7f]*$/;

/**
 * KeyWriter builds a key in a scratch buffer and returns it as one flat string. Concatenating
 * with + would leave a tree of V8 "cons" strings (tens of bytes per node) and garbage for every
 * piece; keys kept in memory for long (in-memory index tables, cache keys) are built here.
 * One shared instance; each build runs start to done() synchronously.
 */
class KeyWriter {
  #buf = Buffer.allocUnsafe(4096);
  #len = 0;

  start(): this {
    this.#len = 0;
    return this;
  }

  #ensure(n: number): void {
    if (this.#len + n <= this.#buf.length) return;
    const next = Buffer.allocUnsafe(2 * (this.#len + n));
    this.#buf.copy(next, 0, 0, this.#len);
    this.#buf = next;
  }

  /** raw appends a binary string (chars < 256) as is. */
  raw(bin: string): this {
    this.#ensure(bin.length);
    this.#len += this.#buf.write(bin, this.#len, 'latin1');
    return this;
  }

  /** text appends encodeText(s). */
  text(s: string): this {
    if (PLAIN.test(s)) {
      this.#ensure(s.length + 1);
      this.#len += this.#buf.write(s, this.#len, 'latin1');
      this.#buf[this.#len++] = 0;
      return this;
    }
    return this.raw(encodeText(s));
  }

  done(): string {
    return this.#buf.toString('latin1', 0, this.#len);
  }
}

const kw = new KeyWriter();

/** flat returns s as one flat string (see KeyWriter). */
export function flat(s: string): string {
  return kw.start().raw(s).done();
}

/** encodeText returns the escaped, 0x00-terminated binary form of s. */
export function encodeText(s: string): string {
  if (PLAIN.test(s)) return s + '\x00';
  const bytes = Buffer.from(s, 'utf8');
  let out = '';
  for (const c of bytes) out += c === 0 ? '\x01\x01' : c === 1 ? '\x01\x02' : String.fromCharCode(c);
  return out + '\x00';
}

/**
 * textEnd returns the position after the terminator of the encoded text starting at pos, without
 * decoding it (0x00 only ever ends an encoded text; escapes use 0x01). Throws CorruptDataError
 * when the terminator is missing.
 */
export function textEnd(bin: string, pos: number): number {
  const end = bin.indexOf('\x00', pos);
  if (end < 0) throw new CorruptDataError(`cannot decode index text at ${pos}: no terminator`);
  return end + 1;
}

/**
 * decodeText reads one encoded text starting at pos and returns [text, position after its
 * terminator]. Throws CorruptDataError when the terminator is missing or an escape is bad.
 */
export function decodeText(bin: string, pos: number): [string, number] {
  const end = textEnd(bin, pos) - 1;
  const raw = bin.slice(pos, end);
  if (PLAIN.test(raw)) return [raw, end + 1];
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 1) {
      const n = raw.charCodeAt(++i);
      if (n !== 1 && n !== 2) throw new CorruptDataError(`cannot decode index text at ${pos + i}: bad escape`);
      bytes.push(n - 1);
    } else {
      bytes.push(c);
    }
  }
  return [Buffer.from(bytes).toString('utf8'), end + 1];
}

function u32(v: number): string {
  return String.fromCharCode((v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
}

function readU32(bin: string, pos: number): number {
  return ((bin.charCodeAt(pos) << 24) | (bin.charCodeAt(pos + 1) << 16) | (bin.charCodeAt(pos + 2) << 8) | bin.charCodeAt(pos + 3)) >>> 0;
}

/** tenantKey is the 8-byte binary form of a tenant: accountID then projectID, big-endian. */
export function tenantKey(t: Tenant): string {
  return u32(t.accountID) + u32(t.projectID);
}

/** readTenantKey decodes tenantKey's output at pos. */
export function readTenantKey(bin: string, pos: number): Tenant {
  return { accountID: readU32(bin, pos), projectID: readU32(bin, pos + 4) };
}

/** idKey is the 8-byte big-endian form of a series ID (0 <= id < 2^53), so keys sort by ID. */
export function idKey(id: number): string {
  return u32(Math.floor(id / 2 ** 32)) + u32(id >>> 0);
}

/** readIdKey decodes idKey's output at pos. */
export function readIdKey(bin: string, pos: number): number {
  if (pos + 8 > bin.length) throw new CorruptDataError(`cannot decode series id at ${pos}: item too short`);
  return readU32(bin, pos) * 2 ** 32 + readU32(bin, pos + 4);
}

/** dayKey is the 4-byte form of a UTC day number (days since 1970-01-01, offset by 2^31 so earlier days sort first). */
export function dayKey(day: number): string {
  return u32((day + 0x80000000) >>> 0);
}

/** readDayKey decodes dayKey's output at pos. */
export function readDayKey(bin: string, pos: number): number {
  return readU32(bin, pos) - 0x80000000;
}

/** labelsKey is the binary form of a canonical label set: name, value, name, value … each encoded text. */
export function labelsKey(labels: Labels): string {
  kw.start();
  for (const l of labels) kw.text(l.name).text(l.value);
  return kw.done();
}

/** decodeLabelsKey reads labels encoded by labelsKey from bin[pos..end). */
export function decodeLabelsKey(bin: string, pos: number, end = bin.length): Label[] {
  const out: Label[] = [];
  while (pos < end) {
    const [name, p1] = decodeText(bin, pos);
    if (p1 >= end) throw new CorruptDataError(`cannot decode labels at ${pos}: name "${name}" has no value`);
    const [value, p2] = decodeText(bin, p1);
    out.push({ name, value });
    pos = p2;
  }
  if (pos !== end) throw new CorruptDataError(`cannot decode labels: overran the item by ${pos - end} bytes`);
  return out;
}

/** seriesByLabelsPrefix prefixes the item mapping a tenant's label set to its series IDs. */
export function seriesByLabelsPrefix(tenant: string, labels: string): string {
  // The extra 0x00 ends the label list: no encoded name starts with 0x00, so a longer label set
  // never shares this prefix.
  return KIND_SERIES_BY_LABELS + tenant + labels + '\x00';
}

/**
 * labelsBySeriesPrefix prefixes the item holding the tenant and labels of one series. The ID
 * comes first so the WAL replay can find a series' tenant from its ID alone.
 */
export function labelsBySeriesPrefix(id: number): string {
  return KIND_LABELS_BY_SERIES + idKey(id);
}

/** dayPrefix prefixes every per-day item of one kind, tenant and day. */
export function dayPrefix(kind: string, tenant: string, day: number): string {
  return kind + tenant + dayKey(day);
}

/** seriesItems returns the global items written once when a series is created. */
export function seriesItems(tenant: string, labels: string, id: number): string[] {
  const idk = idKey(id);
  return [
    kw.start().raw(KIND_SERIES_BY_LABELS).raw(tenant).raw(labels).raw('\x00').raw(idk).done(),
    kw.start().raw(KIND_LABELS_BY_SERIES).raw(idk).raw(tenant).raw(labels).done(),
  ];
}

/** dayItems returns the per-day items written the first time a series has a sample on a day. */
export function dayItems(tenant: string, day: number, labels: Labels, id: number): string[] {
  const idk = idKey(id);
  const dk = dayKey(day);
  const out: string[] = [kw.start().raw(KIND_DAY_SERIES).raw(tenant).raw(dk).raw(idk).done()];
  for (const l of labels) out.push(kw.start().raw(KIND_DAY_LABEL).raw(tenant).raw(dk).text(l.name).text(l.value).raw(idk).done());
  return out;
}

/** MS_PER_DAY is one UTC day in milliseconds. */
export const MS_PER_DAY = 86_400_000;

/** dayOf returns the UTC day number of a timestamp in ms. */
export function dayOf(ts: number): number {
  return Math.floor(ts / MS_PER_DAY);
}
