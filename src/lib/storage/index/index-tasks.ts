import { IndexPart } from './index-part.ts';
import { copyMergedItems, writeIndexPart } from './index-part-writer.ts';
import type { LruCache } from '../common/lru-cache.ts';

// The index part tasks: plain, structured-cloneable requests that background/ runs on the main
// thread or in a worker, like the data part tasks of background/tasks.ts. IndexTable asks for
// them through IndexRunner, so index/ does not depend on the runner that implements it.

/** IndexFlushRequest asks to write sorted items as an index part of dir. */
export interface IndexFlushRequest {
  readonly dir: string;
  /** items, sorted, packed by packItems: one transferable buffer instead of many strings to clone. */
  readonly items: Uint8Array;
  readonly maxSeriesId: number;
  readonly zstdLevel: number;
}

/** IndexMergeRequest asks to merge index parts of dir, dropping per-day items before cutoffDay. */
export interface IndexMergeRequest {
  readonly dir: string;
  readonly inputs: readonly string[];
  readonly cutoffDay: number;
  readonly maxSeriesId: number;
  readonly zstdLevel: number;
}

/** IndexRunner writes and merges index parts (background/runner.ts implements it). */
export interface IndexRunner {
  indexFlush(req: IndexFlushRequest): Promise<string>;
  indexMerge(req: IndexMergeRequest, signal: AbortSignal): Promise<string>;
}

/** runIndexFlush performs an IndexFlushRequest; returns the new part's name. */
export async function runIndexFlush(req: IndexFlushRequest): Promise<string> {
  return writeIndexPart(req.dir, req.zstdLevel, req.maxSeriesId, async (w) => {
    unpackItems(req.items, (item) => w.add(item));
  });
}

/** packItems writes items (binary strings) into one buffer: per item a u32 length and its bytes. */
export function packItems(items: readonly string[]): Uint8Array {
  let total = 0;
  for (const it of items) total += 4 + it.length;
  const buf = Buffer.allocUnsafeSlow(total);
  let pos = 0;
  for (const it of items) {
    buf.writeUInt32LE(it.length, pos);
    pos += 4;
    pos += buf.write(it, pos, 'latin1');
  }
  return buf;
}

/** unpackItems calls fn with every item packed by packItems, in order. */
export function unpackItems(packed: Uint8Array, fn: (item: string) => void): void {
  const buf = Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength);
  for (let pos = 0; pos < buf.length; ) {
    const len = buf.readUInt32LE(pos);
    pos += 4;
    fn(buf.toString('latin1', pos, pos + len));
    pos += len;
  }
}

/** runIndexMerge performs an IndexMergeRequest; returns the new part's name. */
export async function runIndexMerge(req: IndexMergeRequest, signal: AbortSignal, cache: LruCache<string[]>): Promise<string> {
  const parts: IndexPart[] = [];
  try {
    for (const name of req.inputs) parts.push(IndexPart.open(req.dir, name, cache));
    return await writeIndexPart(req.dir, req.zstdLevel, req.maxSeriesId, (w) => copyMergedItems(parts, w, req.cutoffDay, signal));
  } finally {
    for (const p of parts) p.release();
  }
}
