import { join } from 'node:path';
import { type FlushedPart, writeBufferParts } from '../buffer-flush.ts';
import { DataPart } from '../data-part.ts';
import { hasId } from '../index/id-sets.ts';
import type { LruCache } from '../lru-cache.ts';
import type { BlockHeaders, PartMeta } from '../part-format.ts';
import { mergeParts } from '../part-merge.ts';
import { type SharedBufferData, SharedBufferView } from '../raw-buffer.ts';

// Background work is described by plain, structured-cloneable requests so the same functions run
// on the main thread or in a worker thread (background/worker-main.ts).

/** FlushRequest asks to write sealed buffers as parts (left in their partitions' tmp dirs). */
export interface FlushRequest {
  readonly buffers: readonly SharedBufferData[];
  /** dataDir holds the partitions; a part of partition P is written to dataDir/P/tmp/<name>. */
  readonly dataDir: string;
  readonly zstdLevel: number;
  readonly dedupMs: number;
  /** deleted are the deleted series IDs, sorted (their samples are left out). */
  readonly deleted: Float64Array;
}

/** MergeRequest asks to merge parts of one partition into partitionDir/tmp/outName. */
export interface MergeRequest {
  readonly partitionDir: string;
  readonly inputs: readonly string[];
  readonly outName: string;
  readonly zstdLevel: number;
  readonly dedupMs: number;
  readonly minTs: number;
  readonly maxTs: number;
  readonly deleted: Float64Array;
}

/** runFlush performs a FlushRequest. */
export async function runFlush(req: FlushRequest, signal: AbortSignal): Promise<FlushedPart[]> {
  const deleted = req.deleted;
  return writeBufferParts(
    req.buffers.map((b) => new SharedBufferView(b)),
    {
      zstdLevel: req.zstdLevel,
      dedupMs: req.dedupMs,
      isDeleted: deleted.length === 0 ? () => false : (id) => hasId(deleted, id),
      tmpDirOf: (partition, name) => join(req.dataDir, partition, 'tmp', name),
      signal,
    },
  );
}

/**
 * runMerge performs a MergeRequest, reading the inputs through its own part handles. Returns the
 * output's metadata, or undefined when nothing was left (no output directory then).
 */
export async function runMerge(req: MergeRequest, signal: AbortSignal, cache: LruCache<BlockHeaders>): Promise<PartMeta | undefined> {
  const parts: DataPart[] = [];
  try {
    for (const name of req.inputs) parts.push(DataPart.open(req.partitionDir, name, cache));
    const deleted = req.deleted;
    return await mergeParts(parts, join(req.partitionDir, 'tmp', req.outName), {
      zstdLevel: req.zstdLevel,
      dedupMs: req.dedupMs,
      minTs: req.minTs,
      maxTs: req.maxTs,
      isDeleted: deleted.length === 0 ? () => false : (id) => hasId(deleted, id),
      signal,
    });
  } finally {
    for (const p of parts) p.release();
  }
}
