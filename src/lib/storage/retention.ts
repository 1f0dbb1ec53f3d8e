import { MS_PER_DAY, dayOf } from './index/keys.ts';
import { partitionRange } from './common/partition-name.ts';

// Retention rules, pure: the storage calls them with its injected clock.

/** MAX_FUTURE_MS: rows further ahead of the clock than this are rejected (clock skew allowance). */
export const MAX_FUTURE_MS = 2 * MS_PER_DAY;

/** retentionMinTs is the oldest timestamp retention keeps at time now. */
export function retentionMinTs(now: number, retentionMs: number): number {
  return now - retentionMs;
}

/** cutoffDay is the first UTC day whose per-day index entries retention keeps. */
export function cutoffDay(now: number, retentionMs: number): number {
  return dayOf(retentionMinTs(now, retentionMs));
}

/** partitionsToDrop returns the partitions whose whole month is older than retention. */
export function partitionsToDrop(names: readonly string[], now: number, retentionMs: number): string[] {
  const minTs = retentionMinTs(now, retentionMs);
  return names.filter((n) => partitionRange(n).maxTs < minTs);
}

/** acceptedRange is the inclusive range of timestamps a write may carry at time now. */
export function acceptedRange(now: number, retentionMs: number): { minTs: number; maxTs: number } {
  return { minTs: retentionMinTs(now, retentionMs), maxTs: now + MAX_FUTURE_MS };
}

/** dayRange returns the UTC days a search of [minTs, maxTs] must visit, cut to what retention keeps. */
export function dayRange(minTs: number, maxTs: number, now: number, retentionMs: number): { minDay: number; maxDay: number } {
  const lo = Math.max(minTs, retentionMinTs(now, retentionMs));
  const hi = Math.min(maxTs, now + MAX_FUTURE_MS);
  return { minDay: dayOf(lo), maxDay: dayOf(hi) };
}
