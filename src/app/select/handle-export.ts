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

/** StreamBody is a streamed response: runRead holds the request's slot until it has been sent. */
export interface StreamBody {
  readonly stream: Readable;
  readonly contentType: string;
}

// Series are written into chunks, so a million small series do not become a million writes. The
// first chunk is small (a small export allocates little); each next one doubles up to the last
// size: every chunk is one socket write, and per write the kernel's loopback path cost more than
// the bytes (a full export of 14.4M rows: 8.6 CPU-s in 64 KiB chunks, 4.5 in 1 MiB chunks).
const FIRST_CHUNK_BYTES = 64 * 1024;
const CHUNK_BYTES = 1024 * 1024;

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
 * own buffer, valid until its next call: streamSeries copies it out at once.
 */
type Render = (s: SeriesSamples) => string | Uint8Array;

/**
 * streamSeries renders every matching series with render into chunks (a series larger than a
 * chunk goes out as one chunk of its own). The series are borrowed from the search
 * (SearchQuery.borrow): render reads them before the next one is asked for.
 */
function streamSeries(c: ReadContext, q: SearchQuery, render: Render, head?: Buffer): Readable {
  const { storage } = c.deps;
  async function* chunks(): AsyncGenerator<Buffer> {
    if (head !== undefined) yield head;
    let chunk = Buffer.allocUnsafe(FIRST_CHUNK_BYTES);
    let len = 0;
    for await (const s of storage.searchSeries({ ...q, borrow: true }, c.signal)) {
      const part = render(s);
      const size = typeof part === 'string' ? Buffer.byteLength(part) : part.length;
      if (len + size > chunk.length) {
        if (len > 0) {
          yield chunk.subarray(0, len);
          chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, 2 * chunk.length));
          len = 0;
        }
        if (size > chunk.length) {
          // A copy: part may be the renderer's own buffer.
          yield typeof part === 'string' ? Buffer.from(part) : Buffer.from(part);
          continue;
        }
      }
      if (typeof part === 'string') len += chunk.write(part, len);
      else {
        chunk.set(part, len);
        len += size;
      }
    }
    if (len > 0) yield chunk.subarray(0, len);
  }
  return Readable.from(chunks(), { objectMode: false });
}

/** handleExportJson serves /api/v1/export: one JSON line per series (max_rows_per_line splits long ones). */
export async function handleExportJson(c: ReadContext): Promise<StreamBody> {
  const jsonline = await jsonLineWriter();
  const q = exportQuery(c);
  const maxRows = Number(c.params.get('max_rows_per_line') ?? 0);
  if (!Number.isSafeInteger(maxRows) || maxRows < 0) throw badData('max_rows_per_line', new Error('must be a non-negative integer'));
  return { stream: streamSeries(c, q, (s) => jsonline.writeSeriesView(s.labels, s.timestamps, s.values, maxRows)), contentType: 'application/stream+json' };
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
  return { stream: streamSeries(c, q, (s) => csv.writeSeries(columns, s.labels, s.timestamps, s.values)), contentType: 'text/csv; charset=utf-8' };
}

/** handleExportNative serves /api/v1/export/native: Strata's native block format. */
export async function handleExportNative(c: ReadContext): Promise<StreamBody> {
  const native = await nativeWriter();
  const q = exportQuery(c);
  return { stream: streamSeries(c, q, (s) => native.encodeSeries(s.labels, s.timestamps, s.values), native.header()), contentType: 'application/octet-stream' };
}

/** handleFederate serves /federate: the last sample of each series within the lookback window, as Prometheus text. */
export async function handleFederate(c: ReadContext): Promise<StreamBody> {
  const prometheus = await prometheusWriter();
  const lookback = c.deps.limits.lookbackDeltaMs;
  const end = time(c, 'time', c.now);
  const q: SearchQuery = { tenant: c.deps.tenant, matcherSets: matchSets(c), timeRange: { minTimestamp: end - lookback + 1, maxTimestamp: end }, maxSeries: c.deps.limits.maxUniqueTimeseries };
  return {
    stream: streamSeries(c, q, (s) => {
      const i = s.timestamps.length - 1;
      // A series whose newest sample is a staleness marker has ended; federation leaves it out.
      if (i < 0 || isStaleNaN(s.values[i]!)) return '';
      return prometheus.writeSample(s.labels, s.values[i]!, s.timestamps[i]!);
    }),
    contentType: 'text/plain; version=0.0.4; charset=utf-8',
  };
}
