import { setImmediate as yieldNow } from 'node:timers/promises';
import { normalizeSamples } from '../../storageapi/dedup.ts';
import { newPartName } from '../common/fs-util.ts';
import { unionAscending } from '../common/sorted.ts';
import type { PartMeta } from '../part/part-format.ts';
import { PartWriter } from '../part/part-writer.ts';
import { nextPartitionStart, partitionNameOf, partitionRange } from '../common/partition-name.ts';
import type { BufferSource } from './raw-buffer.ts';
import { SeriesScratch } from '../part/series-scratch.ts';

/** FlushOptions control how a buffer becomes parts. */
export interface FlushOptions {
  readonly zstdLevel: number;
  readonly dedupMs: number;
  readonly isDeleted: (id: number) => boolean;
  /** tmpDirOf returns the directory a new part of a partition is written into. */
  readonly tmpDirOf: (partition: string, partName: string) => string;
  readonly signal: AbortSignal;
}

/** FlushedPart is one part written by writeBufferParts, still in its tmp dir. */
export interface FlushedPart {
  readonly partition: string;
  readonly name: string;
  readonly tmpDir: string;
  readonly meta: PartMeta;
}

const YIELD_EVERY_ROWS = 64 * 1024;

/**
 * writeBufferParts writes the samples of sealed buffers as new parts, one per monthly partition
 * touched, each in a tmp dir (the caller moves them into place). Samples of a series are
 * sorted, duplicates resolved and deduplicated as in merges; deleted series are left out.
 * On failure every tmp dir written so far is returned through `written` for cleanup.
 */
export async function writeBufferParts(buffers: readonly BufferSource[], opts: FlushOptions, written: string[] = []): Promise<FlushedPart[]> {
  const ids = unionSeriesIds(buffers);
  const writers = new Map<string, { name: string; dir: string; w: PartWriter }>();
  const s = new SeriesScratch();
  let sinceYield = 0;
  const writerOf = (partition: string) => {
    let e = writers.get(partition);
    if (!e) {
      const name = newPartName();
      const dir = opts.tmpDirOf(partition, name);
      written.push(dir);
      e = { name, dir, w: new PartWriter(dir, opts.zstdLevel) };
      writers.set(partition, e);
    }
    return e.w;
  };
  const months = new MonthWriters(writerOf);
  try {
    // An index loop: iterating a Float64Array boxes every ID in an iterator result.
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!;
      if (opts.isDeleted(id)) continue;
      s.reset();
      for (const b of buffers) {
        s.ensure(b.rowsOf(id));
        s.n += b.copySeries(id, s.ts, s.vals, s.n);
      }
      s.n = normalizeSamples(s.ts, s.vals, s.n, opts.dedupMs);
      months.write(s, id);
      sinceYield += s.n;
      if (sinceYield >= YIELD_EVERY_ROWS) {
        sinceYield = 0;
        await yieldNow();
        opts.signal.throwIfAborted();
      }
    }
    const out: FlushedPart[] = [];
    for (const [partition, e] of writers) out.push({ partition, name: e.name, tmpDir: e.dir, meta: e.w.finish() });
    return out;
  } catch (err) {
    for (const e of writers.values()) e.w.abort();
    throw err;
  }
}

// A series' samples may straddle a month boundary: each run goes to its own partition. The month
// of the last run is remembered (nearly every series of a flush falls in it), so the partition's
// name and end are computed once per month rather than for every series.
class MonthWriters {
  #from = 1;
  #to = 0;
  #w: PartWriter | undefined;
  readonly #writerOf: (p: string) => PartWriter;

  constructor(writerOf: (p: string) => PartWriter) {
    this.#writerOf = writerOf;
  }

  write(s: SeriesScratch, id: number): void {
    let start = 0;
    while (start < s.n) {
      const t0 = s.ts[start]!;
      if (!(t0 >= this.#from && t0 < this.#to)) {
        this.#to = nextPartitionStart(t0);
        const name = partitionNameOf(t0);
        this.#from = partitionRange(name).minTs;
        this.#w = this.#writerOf(name);
      }
      const limit = this.#to;
      let end = start + 1;
      while (end < s.n && s.ts[end]! < limit) end++;
      const w = this.#w!;
      if (start === 0 && end === s.n) w.addSeries(id, s.ts, s.vals, s.n);
      else w.addSeries(id, s.ts.subarray(start, end), s.vals.subarray(start, end), end - start);
      start = end;
    }
  }
}

/**
 * unionSeriesIds returns the IDs of every series in any of the buffers, ascending, each once. Each
 * buffer's list is already ascending, so they are merged pairwise: no Set and no boxed array of
 * every ID (at 100k series the Set and the sort were ~5% of the background thread's flush time).
 */
export function unionSeriesIds(buffers: readonly BufferSource[]): Float64Array {
  return unionAscending(buffers.map((b) => b.seriesIds()), new Float64Array(0));
}
