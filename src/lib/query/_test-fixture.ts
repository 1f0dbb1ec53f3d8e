// Test fixture shared by the registry tests: a small MemorySearcher with known data and
// helpers that evaluate a query and flatten the result to plain values.

import { expect } from 'vitest';
import { STALE_NAN, type Labels } from '../storageapi/index.ts';
import { instant, range } from './engine.ts';
import { MemorySearcher } from './memory-searcher.ts';

const TENANT = { accountID: 0, projectID: 0 };
const MIN = 60_000;

function labels(name: string, rest: Record<string, string>): Labels {
  return Object.entries({ __name__: name, ...rest }).sort(([a], [b]) => (a < b ? -1 : 1)).map(([n, value]) => ({ name: n, value }));
}

/**
 * FIXTURE_SERIES: one sample per minute from 0m to 10m.
 * gauge{job=a} 1 3 2 5 4 4 6 1 2 8 7 | gauge{job=b} 10… | gauge{job=c} 4…
 * counter{job=a} 0 10 … 100 | counter{job=b} 0 10 20 5 15 … 75 (reset at 3m)
 * lat_bucket{le=0.1|0.5|1|+Inf} 1 4 9 10 (constant) | info{n="12", text="Hello"} 1
 * target_info{job="a", version="1.2"} 1
 * stale_gauge 1 2 then a staleness marker at 2m (null stands for the marker: V8 canonicalises
 * NaN payloads kept in plain arrays, so the marker is only added at load time).
 */
export const FIXTURE_SERIES: readonly { labels: Labels; values: (number | null)[] }[] = [
  { labels: labels('gauge', { job: 'a' }), values: [1, 3, 2, 5, 4, 4, 6, 1, 2, 8, 7] },
  { labels: labels('gauge', { job: 'b' }), values: Array(11).fill(10) },
  { labels: labels('gauge', { job: 'c' }), values: Array(11).fill(4) },
  { labels: labels('counter', { job: 'a' }), values: Array.from({ length: 11 }, (_, i) => i * 10) },
  { labels: labels('counter', { job: 'b' }), values: [0, 10, 20, 5, 15, 25, 35, 45, 55, 65, 75] },
  ...[['0.1', 1], ['0.5', 4], ['1', 9], ['+Inf', 10]].map(([le, v]) => ({ labels: labels('lat_bucket', { le: String(le) }), values: Array(11).fill(v) })),
  { labels: labels('info', { n: '12', text: 'Hello' }), values: Array(11).fill(1) },
  { labels: labels('info', { n: '2', text: 'World' }), values: Array(11).fill(1) },
  { labels: labels('stale_gauge', {}), values: [1, 2, null] },
  { labels: labels('target_info', { job: 'a', version: '1.2' }), values: Array(11).fill(1) },
];

export function fixture(): MemorySearcher {
  const db = new MemorySearcher();
  for (const s of FIXTURE_SERIES) s.values.forEach((v, i) => db.add(TENANT, s.labels, i * MIN, v ?? STALE_NAN));
  return db;
}

const db = fixture();
export const OPTS = { now: () => 1_234_000, subqueryStepMs: MIN };

/** show formats a label set as `name{a="b"}` with labels in order (the keys of results). */
export function show(ls: Labels): string {
  const name = ls.find((l) => l.name === '__name__')?.value ?? '';
  return `${name}{${ls.filter((l) => l.name !== '__name__').map((l) => `${l.name}="${l.value}"`).join(',')}}`;
}

/** at evaluates an instant query at 10m: a scalar as {scalar: v}, a vector as {labels: v}. */
export async function at(query: string, timeMs = 10 * MIN): Promise<Record<string, number>> {
  const r = await instant(db, query, timeMs, OPTS);
  if (r.type === 'scalar') return { scalar: r.value };
  if (r.type !== 'vector') throw new Error(`want a scalar or vector, got ${r.type}`);
  return Object.fromEntries(r.vector.map((s) => [show(s.labels), s.value]));
}

/** order returns the label sets of an instant vector in result order. */
export async function order(query: string): Promise<string[]> {
  const r = await instant(db, query, 10 * MIN, OPTS);
  if (r.type !== 'vector') throw new Error(`want a vector, got ${r.type}`);
  return r.vector.map((s) => show(s.labels));
}

/** over evaluates a range query 0m..10m step 1m; missing steps are null. */
export async function over(query: string): Promise<Record<string, (number | null)[]>> {
  const r = await range(db, query, 0, 10 * MIN, MIN, OPTS);
  if (r.type !== 'matrix') throw new Error(`want a matrix, got ${r.type}`);
  return Object.fromEntries(r.matrix.map((s) => {
    const row: (number | null)[] = Array(11).fill(null);
    s.timestamps.forEach((t, i) => (row[t / MIN] = s.values[i]!));
    return [show(s.labels), row];
  }));
}

/** expectValues compares results by key with a relative tolerance (NaN equals NaN). */
export function expectValues(got: Record<string, number>, want: Record<string, number>, what: string): void {
  expect(Object.keys(got).sort(), what).toEqual(Object.keys(want).sort());
  for (const [k, v] of Object.entries(want)) {
    const g = got[k]!;
    if (Number.isNaN(v)) expect(g, `${what} ${k}`).toBeNaN();
    else expect(Math.abs(g - v) <= 1e-9 * Math.max(1, Math.abs(v)), `${what} ${k}: want ${v}, got ${g}`).toBe(true);
  }
}

