import { closeSync, fdatasync, fdatasyncSync, openSync, readdirSync, statSync, unlinkSync, writevSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { errorMessage } from '../common/errors.ts';
import { fsyncDirAsync, mkdirp } from '../common/fs-util.ts';
import type { StorageLogger } from '../common/logger.ts';

const fdatasyncAsync = promisify(fdatasync);

/** WAL_SEGMENT_RE matches segment file names: 16 hex digits of a sequence number. */
export const WAL_SEGMENT_RE = /^([0-9a-f]{16})\.wal$/;

/** segmentName returns the file name of segment seq. */
export function segmentName(seq: number): string {
  return seq.toString(16).padStart(16, '0') + '.wal';
}

/** listSegments returns the sequence numbers of dir's segments, ascending. */
export function listSegments(dir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const n of names) {
    const m = WAL_SEGMENT_RE.exec(n);
    if (m) out.push(parseInt(m[1]!, 16));
  }
  return out.sort((a, b) => a - b);
}

/** WalOptions configure the write-ahead log. */
export interface WalOptions {
  /**
   * fsyncIntervalMs is the power-loss durability policy: 0 fsyncs before every acknowledgement
   * (batched across concurrent writers), N > 0 fsyncs every N ms, a negative value never fsyncs
   * (the OS writes back on its own). A SIGKILL loses nothing acknowledged in every mode.
   */
  readonly fsyncIntervalMs: number;
  /** maxSegmentBytes starts a new segment once the current one exceeds it. */
  readonly maxSegmentBytes: number;
  readonly logger: StorageLogger;
}

/**
 * Wal appends records to numbered segment files. append() returns once write(2) returned, so the
 * data is in the OS page cache and survives the death of the process. rotate() seals the current
 * segment; removeThrough() deletes sealed segments whose content has been flushed to parts.
 * Single-threaded: append and rotate are synchronous.
 */
export class Wal {
  readonly dir: string;
  readonly #opts: WalOptions;
  #seq: number;
  #fd: number;
  #segmentBytes = 0;
  #sealedBytes = 0;
  #writes = 0;
  #synced = 0;
  #syncing: Promise<void> | undefined;
  // fsyncs of rotated segments, chained so that awaiting the last covers all of them.
  #rotationChain: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  /** bytesWritten counts every byte appended since open. */
  bytesWritten = 0;
  /** fsyncs counts completed fsync calls. */
  fsyncs = 0;

  /** open starts a new segment after the highest existing one (existing ones are left for replay). */
  constructor(dir: string, opts: WalOptions) {
    this.dir = dir;
    this.#opts = opts;
    mkdirp(dir);
    const existing = listSegments(dir);
    for (const s of existing) this.#sealedBytes += statSync(join(dir, segmentName(s))).size;
    this.#seq = (existing.at(-1) ?? 0) + 1;
    this.#fd = this.#openSegment(this.#seq);
    if (opts.fsyncIntervalMs > 0) {
      this.#timer = setInterval(() => {
        this.sync().catch((err: unknown) => opts.logger.error({ err: errorMessage(err), dir }, 'cannot fsync the write-ahead log'));
      }, opts.fsyncIntervalMs);
      this.#timer.unref();
    }
  }

  // The new file's directory entry is fsynced in the background (sync() waits for it): an
  // fdatasync of the file alone would not make a fresh segment survive a power loss.
  #openSegment(seq: number): number {
    const path = join(this.dir, segmentName(seq));
    try {
      const fd = openSync(path, 'wx');
      if (this.#opts.fsyncIntervalMs >= 0) {
        const prev = this.#rotationChain;
        this.#rotationChain = fsyncDirAsync(this.dir).then(() => prev);
        this.#rotationChain.catch((err: unknown) => this.#opts.logger.error({ err: errorMessage(err), dir: this.dir }, 'cannot fsync the WAL directory'));
      }
      return fd;
    } catch (err) {
      throw new Error(`cannot create WAL segment "${path}": ${errorMessage(err)}`, { cause: err });
    }
  }

  /** currentSeq is the segment being appended to. */
  get currentSeq(): number {
    return this.#seq;
  }

  /** sizeBytes is the size of all segments on disk. */
  get sizeBytes(): number {
    return this.#sealedBytes + this.#segmentBytes;
  }

  /**
   * append writes the chunks as one write (writev) to the current segment. Throws when the write
   * fails; then nothing of the call may be acknowledged.
   */
  append(chunks: readonly Uint8Array[]): void {
    if (this.#closed) throw new Error(`cannot append to the WAL in "${this.dir}": it is closed`);
    let total = 0;
    for (const c of chunks) total += c.length;
    try {
      let written = writevSync(this.#fd, chunks as Uint8Array[]);
      if (written < total) written += this.#writeRest(chunks, written);
    } catch (err) {
      throw new Error(`cannot write ${total} bytes to WAL segment "${join(this.dir, segmentName(this.#seq))}": ${errorMessage(err)}`, { cause: err });
    }
    this.#segmentBytes += total;
    this.bytesWritten += total;
    this.#writes++;
    if (this.#segmentBytes >= this.#opts.maxSegmentBytes) this.rotate();
  }

  // writev may write less than asked (rare; signals, huge buffers): finish chunk by chunk.
  #writeRest(chunks: readonly Uint8Array[], done: number): number {
    let skip = done;
    let added = 0;
    for (const c of chunks) {
      if (skip >= c.length) {
        skip -= c.length;
        continue;
      }
      let rest = c.subarray(skip);
      skip = 0;
      while (rest.length > 0) {
        const n = writevSync(this.#fd, [rest]);
        rest = rest.subarray(n);
        added += n;
      }
    }
    return added;
  }

  /**
   * sync resolves when every append made before the call is fsynced. Concurrent callers share
   * one fdatasync (group commit). A no-op when the policy never fsyncs.
   */
  async sync(): Promise<void> {
    if (this.#opts.fsyncIntervalMs < 0) return;
    const target = this.#writes;
    while (this.#synced < target && !this.#closed) {
      this.#syncing ??= this.#doSync();
      await this.#syncing;
    }
    // Appends that went to a segment rotated since are covered by its (chained) fsync.
    await this.#rotationChain;
  }

  async #doSync(): Promise<void> {
    const upTo = this.#writes;
    const fd = this.#fd;
    try {
      await fdatasyncAsync(fd);
      this.fsyncs++;
      if (fd === this.#fd) this.#synced = Math.max(this.#synced, upTo);
    } finally {
      this.#syncing = undefined;
    }
  }

  /**
   * rotate seals the current segment and starts the next one; returns the sealed segment's
   * number (every record appended so far is in a segment <= it). The sealed segment is fsynced
   * in the background (unless the policy never fsyncs); sync() waits for that too.
   */
  rotate(): number {
    const sealed = this.#seq;
    const oldFd = this.#fd;
    // An fdatasync in flight on the old descriptor must finish before it is closed.
    const inFlight = this.#syncing?.catch(() => undefined);
    const prev = this.#rotationChain;
    this.#seq++;
    this.#fd = this.#openSegment(this.#seq);
    const dirSynced = this.#rotationChain;
    this.#sealedBytes += this.#segmentBytes;
    this.#segmentBytes = 0;
    this.#synced = this.#writes;
    const policy = this.#opts.fsyncIntervalMs;
    this.#rotationChain = (async () => {
      await inFlight;
      try {
        if (policy >= 0) {
          await fdatasyncAsync(oldFd);
          this.fsyncs++;
        }
      } finally {
        closeSync(oldFd);
      }
      await prev;
      await dirSynced;
    })();
    this.#rotationChain.catch((err: unknown) => this.#opts.logger.error({ err: errorMessage(err), segment: segmentName(sealed) }, 'cannot fsync a rotated WAL segment'));
    return sealed;
  }

  /** removeThrough deletes sealed segments numbered <= seq (their content is in parts now). */
  removeThrough(seq: number): void {
    for (const s of listSegments(this.dir)) {
      if (s > seq || s >= this.#seq) break;
      const path = join(this.dir, segmentName(s));
      try {
        this.#sealedBytes -= statSync(path).size;
        unlinkSync(path);
      } catch (err) {
        this.#opts.logger.warn({ path, err: errorMessage(err) }, 'cannot remove flushed WAL segment');
      }
    }
    this.#sealedBytes = Math.max(0, this.#sealedBytes);
  }

  /** close fsyncs (unless the policy never does) and closes the current segment. */
  async close(): Promise<void> {
    if (this.#closed) return;
    if (this.#timer) clearInterval(this.#timer);
    await this.#syncing?.catch(() => undefined);
    await this.#rotationChain.catch(() => undefined);
    this.#closed = true;
    if (this.#opts.fsyncIntervalMs >= 0) fdatasyncSync(this.#fd);
    closeSync(this.#fd);
  }
}
