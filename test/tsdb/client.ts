// HTTP helpers for the tsdb process tests: plain requests, exports parsed into series, and a
// canonical key per label set so exported data compares exactly with what a test sent.

/** Reply is a whole HTTP response. */
export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Buffer;
  readonly text: string;
}

/** call sends one request and reads the whole response. */
export async function call(method: string, url: string, body?: string | Uint8Array, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
  const buf = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body: buf, text: buf.toString('utf8') };
}

export const get = (url: string, headers?: Record<string, string>): Promise<Reply> => call('GET', url, undefined, headers);
export const post = (url: string, body?: string | Uint8Array, headers?: Record<string, string>): Promise<Reply> => call('POST', url, body ?? '', headers);

/** form posts url-encoded params, as Grafana does for query_range. */
export function postForm(url: string, params: Record<string, string | string[]>): Promise<Reply> {
  return post(url, encodeParams(params), { 'content-type': 'application/x-www-form-urlencoded' });
}

/** encodeParams url-encodes params; an array value repeats the name. */
export function encodeParams(params: Record<string, string | string[]>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const x of Array.isArray(v) ? v : [v]) p.append(k, x);
  return p.toString();
}

/** getJson GETs base+path?params and parses the body, failing with the body when the status is not want. */
export async function getJson<T = { status: string; data: unknown }>(url: string, params: Record<string, string | string[]> = {}, want = 200): Promise<T> {
  const q = encodeParams(params);
  const r = await get(q === '' ? url : `${url}?${q}`);
  if (r.status !== want) throw new Error(`GET ${url}?${q}: want status ${want}, got ${r.status}: ${r.text}`);
  return JSON.parse(r.text) as T;
}

/** Series is one exported series: its labels and parallel timestamps (ms) and values. */
export interface Series {
  readonly metric: Record<string, string>;
  readonly timestamps: number[];
  readonly values: number[];
}

/** labelsKey is a canonical text of a label set (sorted by name), for maps and comparisons. */
export function labelsKey(metric: Readonly<Record<string, string>>): string {
  return JSON.stringify(Object.entries(metric).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** exportValue reads a value of /api/v1/export: a number, "NaN", "Inf", "-Inf", or null (a staleness marker, read as NaN here). */
export function exportValue(v: number | string | null): number {
  if (typeof v === 'number') return v;
  if (v === null) return NaN;
  if (v === 'NaN') return NaN;
  if (v === 'Inf' || v === '+Inf') return Infinity;
  if (v === '-Inf') return -Infinity;
  throw new Error(`unexpected export value ${JSON.stringify(v)}`);
}

/** parseExportLines parses /api/v1/export output line by line (a series may span several lines). */
export function parseExportLines(text: string): Series[] {
  return text.split('\n').filter((l) => l !== '').map((l) => {
    const o = JSON.parse(l) as { metric: Record<string, string>; values: (number | string | null)[]; timestamps: number[] };
    return { metric: o.metric, timestamps: o.timestamps, values: o.values.map(exportValue) };
  });
}

/**
 * exportSeries runs /api/v1/export with match[] (and start, end, … in params) and returns one
 * Series per label set, lines of a split series joined, sorted by labelsKey.
 */
export async function exportSeries(base: string, match: string | string[], params: Record<string, string> = {}): Promise<Series[]> {
  const r = await get(`${base}/api/v1/export?${encodeParams({ 'match[]': match, ...params })}`);
  if (r.status !== 200) throw new Error(`export of ${JSON.stringify(match)}: status ${r.status}: ${r.text}`);
  const byKey = new Map<string, Series>();
  for (const s of parseExportLines(r.text)) {
    const key = labelsKey(s.metric);
    const prev = byKey.get(key);
    if (prev === undefined) byKey.set(key, { metric: s.metric, timestamps: [...s.timestamps], values: [...s.values] });
    else {
      prev.timestamps.push(...s.timestamps);
      prev.values.push(...s.values);
    }
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, s]) => s);
}

/** samplesOf flattens series into "labelsKey@ts" → value, for exact set comparisons. */
export function samplesOf(series: readonly Series[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of series) {
    const key = labelsKey(s.metric);
    s.timestamps.forEach((t, i) => out.set(`${key}@${t}`, s.values[i]!));
  }
  return out;
}

/** metricValue returns the value of one exposition line of /metrics, such as `tsdb_merges_running 1`. */
export function metricValue(exposition: string, series: string): number | undefined {
  const line = exposition.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
