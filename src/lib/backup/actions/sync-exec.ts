import type { Readable } from 'node:stream';
import { errorMessage } from '../errors.ts';
import { meterStream } from '../metered-stream.ts';
import { partKey, type Part } from '../part.ts';
import type { ProgressTracker } from '../progress.ts';
import type { RemoteFs } from '../remote-fs.ts';
import type { SyncPlan } from '../sync-plan.ts';
import { runWorkers } from '../workers.ts';
import type { ResolvedTransfer } from './transfer-options.ts';

/** PartOpener opens the source bytes of a part for upload. */
export type PartOpener = (part: Part, signal: AbortSignal) => Readable;

/** SyncCounts reports what executePlan did. */
export interface SyncCounts {
  readonly uploadedParts: number;
  readonly uploadedBytes: number;
  readonly copiedParts: number;
  readonly copiedBytes: number;
  readonly deletedFiles: number;
}

/**
 * executePlan deletes, then copies, then uploads what `plan` says, into folder `backup` of
 * `dst`, with `t.concurrency` workers per phase. Upload bytes go through the shared throttle
 * and are reported to `tracker`. The first failure stops the run and is thrown, naming the
 * object.
 */
export async function executePlan(
  dst: RemoteFs,
  backup: string,
  plan: SyncPlan,
  t: ResolvedTransfer,
  tracker: ProgressTracker,
  open: PartOpener | undefined,
): Promise<SyncCounts> {
  await runWorkers(plan.delete, t.concurrency, async (f, signal) => {
    await dst.delete(f.path, signal).catch((err: unknown) => {
      throw new Error(`cannot delete "${f.path}" from ${dst.url}: ${errorMessage(err)}`, { cause: err });
    });
  }, t.signal);
  await runWorkers(plan.copy, t.concurrency, async (c, signal) => {
    const to = `${backup}/${partKey(c.part)}`;
    await dst.copy(c.from, to, signal).catch((err: unknown) => {
      throw new Error(`cannot copy part "${c.from}" to "${to}" in ${dst.url}: ${errorMessage(err)}`, { cause: err });
    });
    tracker.partDone();
  }, t.signal);
  if (plan.upload.length > 0 && !open) throw new Error(`cannot sync "${backup}": ${plan.upload.length} parts are missing from the source backup`);
  await runWorkers(plan.upload, t.concurrency, async (p, signal) => {
    const to = `${backup}/${partKey(p)}`;
    const body = meterStream((open as PartOpener)(p, signal), {
      expectedBytes: p.size,
      what: `part "${to}"`,
      bucket: t.bucket,
      onBytes: (n) => tracker.addBytes(n),
      signal,
    });
    await dst.upload(to, body, p.size, signal).catch((err: unknown) => {
      body.destroy();
      throw new Error(`cannot upload part "${to}" to ${dst.url}: ${errorMessage(err)}`, { cause: err });
    });
    tracker.partDone();
  }, t.signal);
  return {
    uploadedParts: plan.upload.length,
    uploadedBytes: sum(plan.upload.map((p) => p.size)),
    copiedParts: plan.copy.length,
    copiedBytes: sum(plan.copy.map((c) => c.part.size)),
    deletedFiles: plan.delete.length,
  };
}

/** sum adds numbers. */
export function sum(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}
