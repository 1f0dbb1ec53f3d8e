import { Readable } from 'node:stream';
import { lazyImport } from '../../lib/process/lazy-import.ts';
import { isStaleNaN, type LabelMatcher, type SearchQuery, type SeriesSamples } from '../../lib/storageapi/index.ts';
import { ApiError, badData } from './errors.ts';
import { applyExtraFilters, parseExtraFilters, parseSelectorArg } from './filters.ts';
import type { ReadContext } from './request-context.ts';
import { parseTimeParam } from './time-params.ts';

// Each export format's writer module is imported on the first export in that format, not at start
// (issue 18 item 4); later exports get the settled promise.
const jsonLineWriter = lazyImport(() => import('../../lib/protoparser/jsonline/index.ts'));
const csvWriter = lazyImport(() => import('../../lib/protoparser/csv/index.ts'));
const nativeWriter = lazyImport(() => import('../../lib/protoparser/native/index.ts'));
const prometheusWriter = lazyImport(() => import('../../lib/protoparser/prometheus/index.ts'));

/**
 * StreamBody is a streamed response: runRead holds the request's slot until it has been sent. Its
 * handler has already produced the first chunk, so a failure before the first byte is thrown by
 * the handler and answered with an error status, not a 200 cut short.
 */
export interface StreamBody {
  readonly stream: Readable;
  readonly contentType: string;
}

// Series are written into chunks of CHUNK_BYTES, so a million small series do not become a million
// writes; a series larger than the room left continues in the next chunk. The chunks stay below
// glibc's mmap threshold (the launcher sets MALLOC_MMAP_THRESHOLD_=65536, process/tuning.ts): a
// larger buffer is mapped fresh and unmapped when collected, so every byte written into it
// page-faulted — in 1 MiB chunks a 14.4M-row export took 82k minor faults and 1.4 of its 3.2
// CPU-s in the kernel; chunks below the threshold come from reused heap memory.
const CHUNK_BYTES = 60 * 1024;

function matchSets(c: ReadContext): LabelMatcher[][] {
  const args = c.params.getAll('match[]', 'match');
  if (args.length === 0) throw new ApiError('bad_data', 'missing "match[]" arg: give at least one series selector, e.g. match[]={__name__=~".+"} for everything');
  return applyExtraFilters(args.flatMap((a) => parseSelectorArg(a, 'match[]')), parseExtraFilters(c.params));
}

function time(c: ReadContext, name: string, fallback: number): number {
  const v = c.params.get(name);
  if (v === undefined || v === '') return fallback;
  try {
    return parseTimeParam(v, c.now);
  } catch (err) {
    throw badData(name, err);
  }
}

function exportQuery(c: ReadContext): SearchQuery {
  return {
    tenant: c.deps.tenant,
    matcherSets: matchSets(c),
    timeRange: { minTimestamp: time(c, 'start', 0), maxTimestamp: time(c, 'end', c.now) },
    maxSeries: c.deps.limits.maxExportSeries,
  };
}

/**
 * Render turns one series into its bytes. A Uint8Array it returns may be a view of the renderer's
 * own buffer, valid until its next call: SeriesChunks copies it out at once.
 */
type Render = (s: SeriesSamples) => string | Uint8Array;

/**
 * SeriesChunks is a streamed export body: every matching series rendered with render, packed into
 * chunks. The series are borrowed from the search (SearchQuery.borrow): render reads them before
 * the next one is asked for. One Readable over the search, no async-iterator layers in between.
 */
class SeriesChunks extends Readable {
  readonly #series: AsyncIterator<SeriesSamples>;
  readonly #render: Render;
  #chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  #len = 0;
  // Chunks filled and not yet returned by next().
  #full: Buffer[] = [];
  // Spelled strings too long for the room left in the chunk, reused across series.
  #spill = Buffer.allocUnsafe(0);

  constructor(series: AsyncIterable<SeriesSamples>, render: Render, head: Uint8Array | undefined) {
    super();
    this.#series = series[Symbol.asyncIterator]();
    this.#render = render;
    if (head !== undefined) this.#append(head);
  }

  /** next renders series until a chunk is full and returns it; null after the last chunk. */
  async next(): Promise<Buffer | null> {
    while (this.#full.length === 0) {
      const r = await this.#series.next();
      if (r.done === true) {
        if (this.#len === 0) return null;
        const last = this.#chunk.subarray(0, this.#len);
        this.#len = 0;
        return last;
      }
      const part = this.#render(r.value);
      if (typeof part === 'string') this.#appendString(part);
      else this.#append(part);
    }
    return this.#full.shift()!;
  }

  override _read(): void {
    this.next().then((b) => this.push(b), (err: unknown) => this.destroy(err as Error));
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    // Ends the search (unpinning its parts) when the client left or rendering failed.
    const done = this.#series.return?.();
    if (done === undefined) cb(err);
    else done.then(() => cb(err), (e: unknown) => cb(err ?? (e as Error)));
  }

  #appendString(part: string): void {
    if (part.length === 0) return;
    // A UTF-16 unit becomes at most 3 bytes: most series fit in the room left and go in directly.
    if (3 * part.length <= this.#chunk.length - this.#len) {
      this.#len += this.#chunk.write(part, this.#len);
      return;
    }
    const size = Buffer.byteLength(part);
    if (this.#spill.length < size) this.#spill = Buffer.allocUnsafe(Math.max(size, 2 * this.#spill.length));
    this.#spill.write(part, 0);
    this.#append(this.#spill.subarray(0, size));
  }

  // append copies bytes into the chunk, continuing into new chunks as each fills up.
  #append(bytes: Uint8Array): void {
    for (let from = 0; ; ) {
      const room = this.#chunk.length - this.#len;
      const left = bytes.length - from;
      if (left < room) {
        this.#chunk.set(from === 0 ? bytes : bytes.subarray(from), this.#len);
        this.#len += left;
        return;
      }
      this.#chunk.set(bytes.subarray(from, from + room), this.#len);
      this.#full.push(this.#chunk);
      this.#chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      this.#len = 0;
      from += room;
    }
  }
}

/**
 * streamSeries starts an export body: it renders up to the first full chunk before returning, so
 * failures before the first byte (limits, deadlines, bad matchers) still reach the client as an
 * error status from the handler instead of a cut stream after a 200.
 */
async function streamSeries(c: ReadContext, q: SearchQuery, render: Render, head?: Uint8Array): Promise<Readable> {
  const body = new SeriesChunks(c.deps.storage.searchSeries({ ...q, borrow: true }, c.signal), render, head);
  try {
    body.push(await body.next());
  } catch (err) {
    body.destroy();
    throw err;
  }
  return body;
}

/** handleExportJson serves /api/v1/export: one JSON line per series (max_rows_per_line splits long ones). */
export async function handleExportJson(c: ReadContext): Promise<StreamBody> {
  const jsonline = await jsonLineWriter();
  const q = exportQuery(c);
  const maxRows = Number(c.params.get('max_rows_per_line') ?? 0);
  if (!Number.isSafeInteger(maxRows) || maxRows < 0) throw badData('max_rows_per_line', new Error('must be a non-negative integer'));
  return { stream: await streamSeries(c, q, (s) => jsonline.writeSeriesView(s.labels, s.timestamps, s.values, maxRows)), contentType: 'application/stream+json' };
}

/** handleExportCsv serves /api/v1/export/csv: `format` lists the columns (DECISIONS.md "CSV export"). */
export async function handleExportCsv(c: ReadContext): Promise<StreamBody> {
  const csv = await csvWriter();
  const arg = c.params.get('format');
  if (arg === undefined || arg === '') throw new ApiError('bad_data', 'missing "format" arg, e.g. format=__name__,__value__,__timestamp__:unix_s,job');
  let columns: ReturnType<typeof csv.parseExportFormat>;
  try {
    columns = csv.parseExportFormat(arg);
  } catch (err) {
    throw badData('format', err);
  }
  const q = exportQuery(c);
  return { stream: await streamSeries(c, q, (s) => csv.writeSeries(columns, s.labels, s.timestamps, s.values)), contentType: 'text/csv; charset=utf-8' };
}

/** handleExportNative serves /api/v1/export/native: Strata's native block format. */
export async function handleExportNative(c: ReadContext): Promise<StreamBody> {
  const native = await nativeWriter();
  const q = exportQuery(c);
  return { stream: await streamSeries(c, q, (s) => native.encodeSeries(s.labels, s.timestamps, s.values), native.header()), contentType: 'application/octet-stream' };
}

/** handleFederate serves /federate: the last sample of each series within the lookback window, as Prometheus text. */
export async function handleFederate(c: ReadContext): Promise<StreamBody> {
  const prometheus = await prometheusWriter();
  const lookback = c.deps.limits.lookbackDeltaMs;
  const end = time(c, 'time', c.now);
  const q: SearchQuery = { tenant: c.deps.tenant, matcherSets: matchSets(c), timeRange: { minTimestamp: end - lookback + 1, maxTimestamp: end }, maxSeries: c.deps.limits.maxUniqueTimeseries };
  return {
    stream: await streamSeries(c, q, (s) => {
      const i = s.timestamps.length - 1;
      // A series whose newest sample is a staleness marker has ended; federation leaves it out.
      if (i < 0 || isStaleNaN(s.values[i]!)) return '';
      return prometheus.writeSample(s.labels, s.values[i]!, s.timestamps[i]!);
    }),
    contentType: 'text/plain; version=0.0.4; charset=utf-8',
  };
}
