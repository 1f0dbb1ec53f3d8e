import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeBufferParts } from '../buffer/buffer-flush.ts';
import { DataPart } from '../part/data-part.ts';
import { moveIntoPlace } from '../common/fs-util.ts';
import { hasId } from '../index/id-sets.ts';
import type { LruCache } from '../common/lru-cache.ts';
import type { BlockHeaders, PartMeta } from '../part/part-format.ts';
import { mergeParts } from '../part/part-merge.ts';
import { type SharedBufferData, SharedBufferView } from '../buffer/raw-buffer.ts';

// Background work is described by plain, structured-cloneable requests so the same functions run
// on the main thread or in a worker thread (background/worker-main.ts). Each task leaves its
// output durable and renamed to its final name in the live directory, but not listed in any
// manifest: the main thread makes it live with one manifest write (FORMAT.md, atomicity rules).
// The index part tasks are in index/index-tasks.ts.

/** FlushRequest asks to write sealed buffers as parts. */
export interface FlushRequest {
  readonly buffers: readonly SharedBufferData[];
  /** dataDir holds the partitions; a part of partition P ends up in dataDir/P/<name>. */
  readonly dataDir: string;
  readonly zstdLevel: number;
  readonly dedupMs: number;
  /** deleted are the deleted series IDs, sorted (their samples are left out). */
  readonly deleted: Float64Array;
}

/** WrittenPart is a part a flush wrote, in place but not yet in the manifest. */
export interface WrittenPart {
  readonly partition: string;
  readonly name: string;
  readonly meta: PartMeta;
}

/** MergeRequest asks to merge parts of one partition into partitionDir/<outName>. */
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

const isDeletedIn = (deleted: Float64Array) => (deleted.length === 0 ? () => false : (id: number) => hasId(deleted, id));

/** runFlush performs a FlushRequest. */
export async function runFlush(req: FlushRequest, signal: AbortSignal): Promise<WrittenPart[]> {
  const written: string[] = [];
  try {
    const parts = await writeBufferParts(
      req.buffers.map((b) => new SharedBufferView(b)),
      {
        zstdLevel: req.zstdLevel,
        dedupMs: req.dedupMs,
        isDeleted: isDeletedIn(req.deleted),
        tmpDirOf: (partition, name) => join(req.dataDir, partition, 'tmp', name),
        signal,
      },
      written,
    );
    return parts.map((p) => {
      moveIntoPlace(p.tmpDir, join(req.dataDir, p.partition, p.name));
      return { partition: p.partition, name: p.name, meta: p.meta };
    });
  } catch (err) {
    for (const dir of written) rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * runMerge performs a MergeRequest, reading the inputs through its own part handles. Returns the
 * output's metadata, or undefined when nothing was left (no output then).
 */
export async function runMerge(req: MergeRequest, signal: AbortSignal, cache: LruCache<BlockHeaders>, pause?: () => Promise<void>): Promise<PartMeta | undefined> {
  const parts: DataPart[] = [];
  const tmp = join(req.partitionDir, 'tmp', req.outName);
  try {
    for (const name of req.inputs) parts.push(DataPart.open(req.partitionDir, name, cache));
    const meta = await mergeParts(parts, tmp, { ...req, isDeleted: isDeletedIn(req.deleted), signal, ...(pause ? { pause } : {}) });
    if (meta) moveIntoPlace(tmp, join(req.partitionDir, req.outName));
    return meta;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    for (const p of parts) p.release();
  }
}
