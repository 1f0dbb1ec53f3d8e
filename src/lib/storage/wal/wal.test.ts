import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ByteWriter } from '../../bytes/index.ts';
import { CorruptDataError } from '../common/errors.ts';
import { silentLogger } from '../common/logger.ts';
import { Wal, listSegments, segmentName } from './wal.ts';
import { SamplesRecord, appendDeleteRecord, appendSeriesRecord, decodeRecord, type WalRecord } from './wal-record.ts';
import { parseSegment, replayWal } from './wal-replay.ts';
import { STALE_NAN, isStaleNaN } from '../../storageapi/stale.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function newDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'strata-wal-'));
  dirs.push(d);
  return d;
}

function samples(rows: [number, number, number][], capacity = rows.length): Uint8Array {
  const r = new SamplesRecord(capacity);
  rows.forEach(([id, ts, v], i) => {
    r.ids[i] = id;
    r.timestamps[i] = ts;
    r.values[i] = v;
  });
  return r.seal(rows.length);
}

function series(id: number, labelsKey: string): Uint8Array {
  const w = new ByteWriter();
  appendSeriesRecord(w, { accountID: 1, projectID: 2 }, id, labelsKey);
  return w.copy();
}

const plain = (r: WalRecord) =>
  r.type === 'samples'
    ? { type: r.type, ids: Array.from(r.ids), ts: Array.from(r.timestamps), vals: Array.from(r.values) }
    : r.type === 'delete'
      ? { type: r.type, tenant: r.tenant, ids: Array.from(r.ids) }
      : r;

describe('WAL records', () => {
  it('round-trip every record type, including partly filled sample records', () => {
    const f = (bytes: Uint8Array, want: object) => {
      const scan = parseSegment(bytes, 'test');
      expect(scan.damage).toBeUndefined();
      expect(scan.records.map(plain)).toEqual([want]);
    };
    f(series(7, 'a\x00b\x00'), { type: 'series', tenant: { accountID: 1, projectID: 2 }, id: 7, labelsKey: 'a\x00b\x00' });
    f(samples([[1, 1000, 1.5], [2, 2000, -3]]), { type: 'samples', ids: [1, 2], ts: [1000, 2000], vals: [1.5, -3] });
    f(samples([[1, 1000, 1.5]], 5), { type: 'samples', ids: [1], ts: [1000], vals: [1.5] });
    f(samples([], 3), { type: 'samples', ids: [], ts: [], vals: [] });
    const w = new ByteWriter();
    appendDeleteRecord(w, { accountID: 3, projectID: 4 }, [5, 6]);
    f(w.copy(), { type: 'delete', tenant: { accountID: 3, projectID: 4 }, ids: [5, 6] });
  });

  it('keeps staleness markers bit-exact', () => {
    const r = new SamplesRecord(1);
    r.ids[0] = 1;
    r.timestamps[0] = 5;
    r.values[0] = STALE_NAN;
    const got = parseSegment(r.seal(1), 'test').records[0]!;
    expect(got.type === 'samples' && isStaleNaN(got.values[0]!)).toBe(true);
  });

  it('keeps every whole record when the last one is cut at any byte', () => {
    const good = [series(1, 'x\x00y\x00'), samples([[1, 10, 1]])];
    const last = samples([[1, 20, 2], [1, 30, 3]]);
    const whole = Buffer.concat([...good, last]);
    const head = whole.length - last.length;
    for (let cut = head; cut <= whole.length; cut++) {
      const scan = parseSegment(whole.subarray(0, cut), 'cut');
      expect(scan.records.length).toBe(cut === whole.length ? 3 : 2);
      expect(scan.validBytes).toBe(cut === whole.length ? whole.length : head);
      expect(scan.damage === undefined).toBe(cut === head || cut === whole.length);
    }
  });

  it('stops at a flipped bit', () => {
    const whole = Buffer.concat([samples([[1, 10, 1]]), samples([[1, 20, 2]])]);
    whole[whole.length - 1]! ^= 1;
    const scan = parseSegment(whole, 'flip');
    expect(scan.records).toHaveLength(1);
    expect(scan.damage).toMatch(/checksum/);
  });

  it('parses arbitrary bytes into records or a reported damage, never an exception', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const scan = parseSegment(bytes, 'fuzz');
        expect(scan.validBytes).toBeLessThanOrEqual(bytes.length);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        try {
          decodeRecord(bytes, 'fuzz');
        } catch (err) {
          expect(err).toBeInstanceOf(CorruptDataError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('Wal', () => {
  it('appends, rotates, replays and removes flushed segments', async () => {
    const dir = newDir();
    const wal = new Wal(dir, { fsyncIntervalMs: 0, maxSegmentBytes: 1 << 20, logger: silentLogger });
    wal.append([series(1, 'a\x00b\x00'), samples([[1, 1, 1]])]);
    await wal.sync();
    const sealed = wal.rotate();
    wal.append([samples([[1, 2, 2]])]);
    await wal.sync();
    expect(wal.fsyncs).toBeGreaterThanOrEqual(2);
    expect(listSegments(dir)).toEqual([1, 2]);
    await wal.close();
    const got: WalRecord[] = [];
    expect(replayWal(dir, silentLogger, (r) => got.push(r))).toEqual({ segments: 2, records: 3, lastSeq: 2 });
    expect(got.map((r) => r.type)).toEqual(['series', 'samples', 'samples']);
    const wal2 = new Wal(dir, { fsyncIntervalMs: -1, maxSegmentBytes: 1 << 20, logger: silentLogger });
    expect(wal2.currentSeq).toBe(3);
    wal2.removeThrough(sealed);
    expect(listSegments(dir)).toEqual([2, 3]);
    await wal2.close();
  });

  it('rotates by size', async () => {
    const dir = newDir();
    const wal = new Wal(dir, { fsyncIntervalMs: -1, maxSegmentBytes: 100, logger: silentLogger });
    for (let i = 0; i < 5; i++) wal.append([samples([[1, i, i], [2, i, i], [3, i, i]])]);
    await wal.close();
    // each record is 88 bytes: a segment closes after its second record
    expect(listSegments(dir)).toEqual([1, 2, 3]);
  });

  it('truncates a torn tail so later segments never follow garbage', async () => {
    const dir = newDir();
    const wal = new Wal(dir, { fsyncIntervalMs: -1, maxSegmentBytes: 1 << 20, logger: silentLogger });
    wal.append([samples([[1, 1, 1]])]);
    await wal.close();
    const path = join(dir, segmentName(1));
    const good = readFileSync(path).length;
    writeFileSync(path, Buffer.concat([readFileSync(path), Buffer.from([9, 0, 0, 0, 1])]));
    const got: WalRecord[] = [];
    replayWal(dir, silentLogger, (r) => got.push(r));
    expect(got).toHaveLength(1);
    expect(readFileSync(path).length).toBe(good);
    expect(readdirSync(dir)).toEqual([segmentName(1)]);
  });
});
