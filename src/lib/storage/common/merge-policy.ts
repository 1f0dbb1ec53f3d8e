/** MergeCandidate is a part as the merge policy sees it. */
export interface MergeCandidate {
  readonly name: string;
  readonly sizeBytes: number;
}

/** MergePolicy tunes pickPartsToMerge. */
export interface MergePolicy {
  /** minParts is the fewest parts worth one merge (unless the partition has too many parts). */
  readonly minParts: number;
  /** maxParts caps the inputs of one merge. */
  readonly maxParts: number;
  /** minRatio: output size / largest input size must reach this, so similar sizes merge (size tiers). */
  readonly minRatio: number;
  /** maxOutputBytes caps the output of one merge. */
  readonly maxOutputBytes: number;
  /** tooManyParts: above this many parts merge the smallest ones even if the ratio is poor. */
  readonly tooManyParts: number;
}

export const DEFAULT_MERGE_POLICY: MergePolicy = {
  minParts: 4,
  maxParts: 16,
  minRatio: 2,
  maxOutputBytes: 64 * 2 ** 30,
  tooManyParts: 48,
};

/**
 * pickPartsToMerge chooses the next set of parts to merge, or [] when none is worth it. It sorts
 * parts by size and, over every window of adjacent sizes, takes the one whose output grows most
 * relative to its largest input: merging parts of similar size keeps write amplification
 * logarithmic (each sample is rewritten about log_minParts(total/flush size) times). Pure.
 */
export function pickPartsToMerge(parts: readonly MergeCandidate[], policy: MergePolicy = DEFAULT_MERGE_POLICY): string[] {
  const sorted = [...parts].sort((a, b) => a.sizeBytes - b.sizeBytes || (a.name < b.name ? -1 : 1));
  const n = sorted.length;
  const tooMany = n > policy.tooManyParts;
  const minParts = tooMany ? 2 : policy.minParts;
  let best: { i: number; k: number; ratio: number } | undefined;
  for (let k = Math.min(policy.maxParts, n); k >= minParts; k--) {
    let sum = 0;
    for (let j = 0; j < k; j++) sum += sorted[j]!.sizeBytes;
    for (let i = 0; i + k <= n; i++) {
      if (i > 0) sum += sorted[i + k - 1]!.sizeBytes - sorted[i - 1]!.sizeBytes;
      if (sum > policy.maxOutputBytes) break;
      const ratio = sum / Math.max(1, sorted[i + k - 1]!.sizeBytes);
      if (best === undefined || ratio > best.ratio) best = { i, k, ratio };
    }
  }
  if (best === undefined || (!tooMany && best.ratio < policy.minRatio)) return [];
  return sorted.slice(best.i, best.i + best.k).map((p) => p.name);
}

/**
 * pickPartsForForceMerge groups all parts into as few merges as maxOutputBytes allows, smallest
 * first. A group of one part is left alone.
 */
export function pickPartsForForceMerge(parts: readonly MergeCandidate[], maxOutputBytes: number): string[][] {
  const sorted = [...parts].sort((a, b) => a.sizeBytes - b.sizeBytes);
  const groups: string[][] = [];
  let cur: string[] = [];
  let sum = 0;
  for (const p of sorted) {
    if (cur.length > 0 && sum + p.sizeBytes > maxOutputBytes) {
      groups.push(cur);
      cur = [];
      sum = 0;
    }
    cur.push(p.name);
    sum += p.sizeBytes;
  }
  if (cur.length > 0) groups.push(cur);
  return groups.filter((g) => g.length > 1);
}
