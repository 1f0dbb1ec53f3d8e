// Natural ("human") string order as sort_by_label uses it: runs of digits compare as numbers.

const CHUNK = /\d+|\D+/g;

/** natsortLess reports whether a sorts before b in natural order. */
export function natsortLess(a: string, b: string): boolean {
  const ca = a.match(CHUNK) ?? [];
  const cb = b.match(CHUNK) ?? [];
  for (let i = 0; i < ca.length; i++) {
    if (i >= cb.length) return false;
    const x = ca[i]!;
    const y = cb[i]!;
    const numeric = /^\d+$/.test(x) && /^\d+$/.test(y);
    if (numeric ? BigInt(x) === BigInt(y) : x === y) {
      if (i === ca.length - 1) return true;
      if (i === cb.length - 1) return false;
      continue;
    }
    return numeric ? BigInt(x) < BigInt(y) : x < y;
  }
  return false;
}
