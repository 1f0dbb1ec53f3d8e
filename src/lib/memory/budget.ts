import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';

/** BudgetOptions mirror -memory.allowedBytes and -memory.allowedPercent. */
export interface BudgetOptions {
  /** allowedBytes overrides allowedPercent when non-zero. */
  readonly allowedBytes: number;
  readonly allowedPercent: number;
  /** systemBytes is the memory available to this process (container limit or RAM). */
  readonly systemBytes: number;
}

/** allowedMemoryBytes is the memory all caches together may use. */
export function allowedMemoryBytes(o: BudgetOptions): number {
  if (o.allowedBytes > 0) return o.allowedBytes;
  return Math.floor((o.systemBytes * o.allowedPercent) / 100);
}

/** HEAP_CACHE_FRACTION is the part of V8's heap limit that caches of JS objects may fill together. */
export const HEAP_CACHE_FRACTION = 0.5;

/**
 * MemoryBudget hands out shares of the allowed memory to caches. Each cache asks once, at
 * startup, for a fraction and sizes itself to the bytes returned; the shares are listed for
 * /metrics so an operator sees where the budget went.
 */
export class MemoryBudget {
  readonly allowedBytes: number;
  /** heapBytes is what caches of JS objects may use together: allowedBytes, capped by V8's heap limit. */
  readonly heapBytes: number;
  readonly #shares = new Map<string, number>();

  /**
   * heapLimitBytes is V8's heap size limit (v8.getHeapStatistics().heap_size_limit, raised by
   * --max-old-space-size); caches of JS objects get fractions of at most HEAP_CACHE_FRACTION of it.
   */
  constructor(allowedBytes: number, heapLimitBytes = Number.POSITIVE_INFINITY) {
    this.allowedBytes = allowedBytes;
    this.heapBytes = Math.min(allowedBytes, Math.floor(heapLimitBytes * HEAP_CACHE_FRACTION));
  }

  /** share returns fraction (0..1] of the budget in whole bytes and records it under name. */
  share(name: string, fraction: number): number {
    return this.#record(name, fraction, this.allowedBytes);
  }

  /**
   * heapShare is share() for a cache that holds JS objects (decoded labels, index blocks, series
   * references). Those live in V8's heap, which cannot outgrow its limit however much memory the
   * machine has: 60% of a 24 GiB machine gave the storage caches 7 GiB against a 4 GiB heap,
   * a budget that could only end in an out-of-memory crash. The fraction applies to heapBytes.
   */
  heapShare(name: string, fraction: number): number {
    return this.#record(name, fraction, this.heapBytes);
  }

  #record(name: string, fraction: number, of: number): number {
    if (!(fraction > 0 && fraction <= 1)) throw new Error(`cannot give cache "${name}" a share of ${fraction}: it must be in (0, 1]`);
    const bytes = Math.floor(of * fraction);
    this.#shares.set(name, bytes);
    return bytes;
  }

  /** shares lists what each cache was given. */
  shares(): ReadonlyMap<string, number> {
    return this.#shares;
  }
}

/**
 * systemMemoryBytes is the smaller of physical RAM and the cgroup memory limit (v2 memory.max or
 * v1 memory.limit_in_bytes), so a container's limit is respected.
 */
export function systemMemoryBytes(readText: (path: string) => string | undefined = readOptional): number {
  const ram = totalmem();
  for (const path of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
    const text = readText(path)?.trim();
    if (text === undefined || text === 'max') continue;
    const limit = Number(text);
    if (Number.isFinite(limit) && limit > 0 && limit < ram) return limit;
  }
  return ram;
}

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
