import { Readable } from 'node:stream';
import { isStaleNaN, type LabelMatcher, type SearchQuery, type SeriesSamples } from '../../lib/storageapi/index.ts';
import { csv, jsonline, native, prometheus } from '../../lib/protoparser/index.ts';
import { ApiError, badData } from './errors.ts';
import { applyExtraFilters, parseExtraFilters, parseSelectorArg } from './filters.ts';
import { type ReadContext } from './request-context.ts';
import { parseTimeParam } from './time-params.ts';

/** StreamBody is a streamed response: runRead holds the request's slot until it has been sent. */
export interface StreamBody {
  readonly stream: Readable;
  readonly contentType: string;
}

// Chunks smaller than this are joined before they are written, so a million small series do not
// become a million writes.
const CHUNK_BYTES = 64 * 1024;

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

/** streamSeries renders every matching series with render, joined into chunks of about 64 KiB. */
function streamSeries(c: ReadContext, q: SearchQuery, render: (s: SeriesSamples) => string | Buffer, head?: Buffer): Readable {
  const { storage } = c.deps;
  async function* chunks(): AsyncGenerator<Buffer> {
    if (head !== undefined) yield head;
    let pending: Array<string | Buffer> = [];
    let size = 0;
    for await (const s of storage.searchSeries(q, c.signal)) {
      const part = render(s);
      pending.push(part);
      size += part.length;
      if (size >= CHUNK_BYTES) {
        yield join(pending);
        pending = [];
        size = 0;
      }
    }
    if (pending.length > 0) yield join(pending);
  }
  return Readable.from(chunks(), { objectMode: false });
}

function join(parts: Array<string | Buffer>): Buffer {
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
}

/** handleExportJson serves /api/v1/export: one JSON line per series (max_rows_per_line splits long ones). */
export async function handleExportJson(c: ReadContext): Promise<StreamBody> {
  const q = exportQuery(c);
  const maxRows = Number(c.params.get('max_rows_per_line') ?? 0);
  if (!Number.isSafeInteger(maxRows) || maxRows < 0) throw badData('max_rows_per_line', new Error('must be a non-negative integer'));
  return { stream: streamSeries(c, q, (s) => jsonline.writeSeriesBytes(s.labels, s.timestamps, s.values, maxRows)), contentType: 'application/stream+json' };
}

/** handleExportCsv serves /api/v1/export/csv: `format` lists the columns (DECISIONS.md "CSV export"). */
export async function handleExportCsv(c: ReadContext): Promise<StreamBody> {
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
  const q = exportQuery(c);
  return { stream: streamSeries(c, q, (s) => native.encodeSeries(s.labels, s.timestamps, s.values), native.header()), contentType: 'application/octet-stream' };
}

/** handleFederate serves /federate: the last sample of each series within the lookback window, as Prometheus text. */
export async function handleFederate(c: ReadContext): Promise<StreamBody> {
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
