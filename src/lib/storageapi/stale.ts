// Prometheus marks a series stale by writing a NaN with a specific bit pattern. The marker must
// survive storage bit-exact; ordinary NaN values are a different bit pattern.

/** STALE_NAN_BITS is the IEEE-754 bit pattern of Prometheus' staleness marker. */
export const STALE_NAN_BITS = 0x7ff0000000000002n;

const scratch = new DataView(new ArrayBuffer(8));
scratch.setBigUint64(0, STALE_NAN_BITS);

/** STALE_NAN is a float64 holding the staleness marker's bits. */
export const STALE_NAN: number = scratch.getFloat64(0);

/** isStaleNaN reports whether v carries exactly the staleness marker's bits. */
export function isStaleNaN(v: number): boolean {
  if (v === v) return false; // not NaN at all: the common case stays cheap
  scratch.setFloat64(0, v);
  return scratch.getBigUint64(0) === STALE_NAN_BITS;
}
