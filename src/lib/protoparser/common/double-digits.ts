// Writers of long series (JSON-lines exports, query answers) spell doubles without String(v):
// String(v) of a double allocates its text in V8's old generation (the number-to-string cache
// lives there), so every value of a large answer became garbage only a full collection frees.
// JSON.stringify of the whole series writes the same shortest round-trip digits into one string.

const COMMA = 44;
const CLOSE_BRACKET = 93;
// "null" and the separator after it.
const NULL_TOKEN = 5;
// Longest series whose values reset() copies into its reusable array (512 KiB of doubles).
const SCRATCH_MAX = 65_536;

/**
 * DoubleDigits hands out the digits of a series' values one value after the other, as
 * JSON.stringify spells them (shortest round trip; -0 as "0"). Non-finite values have no digits:
 * copyNext skips them and the caller writes its own spelling. One instance serves one series at
 * a time, from reset() until its last value.
 */
export class DoubleDigits {
  #text = '[]';
  #pos = 1;
  // A plain array of unboxed doubles, refilled per series: Array.from(Float64Array) boxes every
  // value into a heap number first, a quarter of the cost of spelling them (1,440 values: 122 ns
  // a value against 92 refilled). Series longer than SCRATCH_MAX are not kept around.
  #scratch: number[] = [];

  /** reset starts on the values of another series, from its value `from` on. */
  reset(values: ArrayLike<number>, from = 0): void {
    const n = Math.max(0, values.length - from);
    if (n > SCRATCH_MAX) {
      this.#text = JSON.stringify(Array.prototype.slice.call(values, from));
    } else {
      const a = this.#scratch;
      a.length = n;
      for (let i = 0; i < n; i++) a[i] = values[from + i]!;
      this.#text = JSON.stringify(a);
    }
    this.#pos = 1;
  }

  /**
   * copyNext writes the next value's digits into out from `at` and returns the end, or -1 for a
   * non-finite value (nothing written). out must have room for 24 bytes.
   */
  copyNext(out: Uint8Array, at: number): number {
    const text = this.#text;
    let pos = this.#pos;
    let c = text.charCodeAt(pos);
    if (c === 110) { // n of null
      this.#pos = pos + NULL_TOKEN;
      return -1;
    }
    while (c !== COMMA && c !== CLOSE_BRACKET) {
      out[at++] = c;
      c = text.charCodeAt(++pos);
    }
    this.#pos = pos + 1;
    return at;
  }
}
