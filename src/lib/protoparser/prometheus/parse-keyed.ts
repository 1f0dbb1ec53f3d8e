import type { KeyedColumns } from '../common/keyed-columns.ts';
import { HASH, LBRACE, RBRACE, SPACE, TAB } from '../common/chars.ts';
import { forEachLine } from '../common/parse-result.ts';
import { ErrorSummary } from '../common/parse-error.ts';
import type { SeriesKeyDictionary } from '../common/series-keys.ts';
import type { MetadataCapture } from './metadata.ts';
import { LineParser, parseSample, scanKey, type Sample } from './parse.ts';

/** PrometheusKeyedOptions configure parseKeyed. */
export interface PrometheusKeyedOptions {
  /** Clock (ms) for lines without a timestamp; called once per call. */
  readonly now: () => number;
  /** Number of the first line of text (default 1), for error messages when streaming. */
  readonly firstLine?: number;
  /** keys numbers the series keys; new keys are added to it. */
  readonly keys: SeriesKeyDictionary;
  /** out receives the samples; its table must be keys.table. */
  readonly out: KeyedColumns;
  /** metadata takes the `# HELP`, `# TYPE` and `# UNIT` lines; absent, they are skipped. */
  readonly metadata?: MetadataCapture | undefined;
}

/** KeyedParseResult tells how many lines the text held and which were bad. */
export interface KeyedParseResult {
  readonly errors: ErrorSummary;
  readonly lines: number;
}


/**
 * parseKeyed parses Prometheus text exposition lines exactly as parse() does, but appends each good
 * line to opts.out as (key number, timestamp, value). A line whose series key text is already in
 * opts.keys skips building labels altogether: the same text parses to the same labels, so only the
 * value and timestamp are read. Bad lines are counted and skipped, as in parse().
 */
export function parseKeyed(text: string, opts: PrometheusKeyedOptions): KeyedParseResult {
  if (opts.out.table !== opts.keys.table) throw new Error('cannot parse into a batch of another key table: clear the batch with the dictionary\'s current table first');
  const now = opts.now();
  const firstLine = opts.firstLine ?? 1;
  const errors = new ErrorSummary();
  const p = new KeyedLineParser(text, now, opts.keys, opts.out, opts.metadata);
  const lines = forEachLine(text, firstLine, errors, (start, end) => p.line(start, end));
  return { errors, lines };
}

class KeyedLineParser {
  readonly #s: string;
  readonly #now: number;
  readonly #keys: SeriesKeyDictionary;
  readonly #out: KeyedColumns;
  readonly #sample: Sample = { value: 0, timestamp: 0 };
  readonly #metadata: MetadataCapture | undefined;
  // Built on the first new key only: most bodies have none.
  #full: LineParser | undefined;

  constructor(s: string, now: number, keys: SeriesKeyDictionary, out: KeyedColumns, metadata: MetadataCapture | undefined) {
    this.#s = s;
    this.#now = now;
    this.#keys = keys;
    this.#out = out;
    this.#metadata = metadata;
  }

  line(start: number, end: number): void {
    const s = this.#s;
    let i = start;
    let c = 0;
    while (i < end && ((c = s.charCodeAt(i)) === SPACE || c === TAB)) i++;
    if (i === end) return;
    if (c === HASH) {
      this.#metadata?.text(s, i, end, this.#now);
      return;
    }
    const keys = this.#keys;
    const out = this.#out;
    const prev = out.lastKey;
    let k = keys.predict(prev);
    let keyEnd = k >= 0 ? this.#predictedEnd(k, i, end) : -1;
    if (keyEnd < 0) {
      keyEnd = scanKey(s, i, end);
      k = keyEnd > i ? keys.get(s.slice(i, keyEnd)) : -1;
      if (k < 0) {
        this.#newKey(start, end);
        return;
      }
      keys.follow(prev, k);
    }
    const sample = parseSample(s, i, keyEnd, end, this.#now, this.#sample);
    out.push(k, sample.timestamp, sample.value);
  }

  // predictedEnd returns where the line's key ends when it is key k, else -1. Text starting with
  // a valid key is that key when the key ends with "}" (the parser reads no further); a key
  // without labels must not go on as a longer name, or be followed by "{".
  #predictedEnd(k: number, i: number, end: number): number {
    const s = this.#s;
    const key = this.#out.table.rawKeys[k]!;
    if (!s.startsWith(key, i)) return -1;
    const p = i + key.length;
    if (key.charCodeAt(key.length - 1) === RBRACE || p === end) return p;
    let q = p;
    let c = 0;
    while (q < end && ((c = s.charCodeAt(q)) === SPACE || c === TAB)) q++;
    return q > p && (q === end || c !== LBRACE) ? p : -1;
  }

  // A key not seen yet: the full parser checks the line and builds its labels.
  #newKey(start: number, end: number): void {
    const full = (this.#full ??= new LineParser(this.#s, this.#now));
    full.line(start, end);
    const row = full.rows.pop();
    if (row === undefined) return;
    // scanKey delimits valid lines as line() does, so the key is new; looking again costs little.
    const seen = this.#keys.get(row.rawKey!);
    const k = seen >= 0 ? seen : this.#keys.add(row.rawKey!, row.labels);
    this.#keys.follow(this.#out.lastKey, k);
    this.#out.push(k, row.timestamp, row.value);
  }
}
