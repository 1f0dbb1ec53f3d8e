import * as common from '../protoparser/common/index.ts';

/**
 * KeyDictionaries hands out one series-key dictionary per name (the influx `db` argument, which
 * shapes the labels together with the line), at most `max` of them, each with an equal share of
 * `maxBytes`. Past `max` names it answers undefined, and such requests take the row path, so a
 * client varying the argument cannot grow memory.
 */
export class KeyDictionaries {
  readonly #max: number;
  readonly #bytesEach: number;
  readonly #byName = new Map<string, common.SeriesKeyDictionary>();

  constructor(maxBytes: number, max = 4) {
    if (!(max >= 1)) throw new RangeError(`at least one dictionary is needed; got ${max}`);
    this.#max = max;
    this.#bytesEach = maxBytes / max;
  }

  /** for returns the dictionary of name, creating it while fewer than max exist. */
  for(name: string): common.SeriesKeyDictionary | undefined {
    let d = this.#byName.get(name);
    if (d === undefined && this.#byName.size < this.#max) {
      d = new common.SeriesKeyDictionary(this.#bytesEach);
      this.#byName.set(name, d);
    }
    return d;
  }
}
