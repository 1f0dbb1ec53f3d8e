import type { Label, Labels } from '../storageapi/api.ts';
import { CorruptDataError } from './common/errors.ts';
import { decodeText, textEnd } from './index/keys.ts';
import { ownString } from './series-cache.ts';

// Estimated heap bytes of one shared pair besides its texts: the Map slot, the frozen {name,
// value} object and the three string headers (key, name, value).
const PAIR_OVERHEAD = 120;

/**
 * LabelPairs decodes encoded label sets (index/keys.ts labelsKey) into frozen Labels whose
 * {name, value} objects are shared by every series with the same pair: series of one exporter
 * repeat most pairs (job, instance, mode, the metric name), so the label cache then holds one
 * small array per series instead of an object and two strings per label. At 100k series of five
 * labels the cached labels took 580 bytes per series decoded one by one.
 *
 * Memory is bounded by maxBytes (an estimate of the table's own entries): when a new pair would
 * go over, the table starts empty (pairs already handed out stay valid; only later sharing with
 * them is lost). Single-threaded, like the caches that hold its results.
 */
export class LabelPairs {
  readonly maxBytes: number;
  #pairs = new Map<string, Label>();
  #bytes = 0;
  // decode collects into this and copies out an array of exactly the labels' length: an array
  // grown by push keeps room for 17 elements.
  readonly #scratch: Label[] = [];
  /** resets counts how often the table was over budget and started empty. */
  resets = 0;

  constructor(maxBytes: number) {
    if (!(maxBytes > 0)) throw new RangeError(`label pair table budget must be positive; got ${maxBytes}`);
    this.maxBytes = maxBytes;
  }

  /** size is the number of pairs in the table. */
  get size(): number {
    return this.#pairs.size;
  }

  /** bytes estimates the memory the table holds. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * decode returns the labels encoded in bin (the whole string), frozen, with shared pairs. Throws
   * CorruptDataError as decodeLabelsKey does for a name without a value.
   */
  decode(bin: string): Labels {
    const out = this.#scratch;
    out.length = 0;
    let pos = 0;
    while (pos < bin.length) {
      // A pair is its encoded name and value, as they stand in bin: the table's key.
      const nameEnd = textEnd(bin, pos);
      if (nameEnd >= bin.length) throw new CorruptDataError(`cannot decode labels at ${pos}: a name has no value`);
      const pairEnd = textEnd(bin, nameEnd);
      const key = bin.slice(pos, pairEnd);
      let l = this.#pairs.get(key);
      if (l === undefined) l = this.#add(key);
      out.push(l);
      pos = pairEnd;
    }
    const labels = out.slice();
    out.length = 0;
    return Object.freeze(labels);
  }

  #add(key: string): Label {
    const [name, valueAt] = decodeText(key, 0);
    const [value] = decodeText(key, valueAt);
    // Own copies: the texts would otherwise be slices keeping the whole encoded set alive.
    const l: Label = Object.freeze({ name: ownString(name), value: ownString(value) });
    const bytes = PAIR_OVERHEAD + key.length + 2 * (name.length + value.length);
    if (this.#bytes + bytes > this.maxBytes) {
      this.#pairs = new Map();
      this.#bytes = 0;
      this.resets++;
    }
    this.#pairs.set(ownString(key), l);
    this.#bytes += bytes;
    return l;
  }
}
