// Result comparison as Prometheus' promqltest harness does it: exact label sets (name
// included), floats equal within a relative 1e-6 (NaN equals NaN), order only when asked.

import type { QueryResult, SeriesResult } from '../../src/lib/query/index.ts';
import type { Labels } from '../../src/lib/storageapi/index.ts';
import type { EvalCommand, ExpectedSeries } from './script.ts';

export interface Mismatch {
  readonly message: string;
}

const MIN_NORMAL = 2.2250738585072014e-308;

/** almostEqual: relative epsilon comparison with NaN == NaN (the harness' rule). */
export function almostEqual(a: number, b: number, eps = 1e-6): boolean {
  if (Number.isNaN(a) && Number.isNaN(b)) return true;
  if (a === b) return true;
  const absSum = Math.abs(a) + Math.abs(b);
  const diff = Math.abs(a - b);
  if (a === 0 || b === 0 || absSum < MIN_NORMAL) return diff < eps * MIN_NORMAL;
  return diff / Math.min(absSum, Number.MAX_VALUE) < eps;
}

const key = (ls: Labels): string => JSON.stringify(ls.map((l) => [l.name, l.value]));
const show = (ls: Labels): string => `{${ls.map((l) => `${l.name}=${JSON.stringify(l.value)}`).join(', ')}}`;
const fmt = (v: number): string => (Number.isNaN(v) ? 'NaN' : v === Infinity ? '+Inf' : v === -Infinity ? '-Inf' : String(v));

interface Sample {
  readonly labels: Labels;
  readonly value: number;
}

function compareVector(cmd: EvalCommand, got: readonly Sample[]): Mismatch | null {
  const want = new Map<string, ExpectedSeries>(cmd.expected.map((e) => [key(e.labels), e]));
  const seen = new Set<string>();
  for (let pos = 0; pos < got.length; pos++) {
    const s = got[pos]!;
    const k = key(s.labels);
    const e = want.get(k);
    if (e === undefined) return { message: `unexpected series ${show(s.labels)} = ${fmt(s.value)}` };
    if (seen.has(k)) return { message: `series ${show(s.labels)} appears twice` };
    if (cmd.ordered && e.pos !== pos + 1) return { message: `series ${show(s.labels)} at position ${pos + 1}, want ${e.pos}` };
    const ev = e.values[0];
    if (ev === undefined || ev.kind !== 'value') return { message: `expected no value for ${show(s.labels)}` };
    if (!almostEqual(ev.v, s.value)) return { message: `${show(s.labels)}: want ${fmt(ev.v)}, got ${fmt(s.value)}` };
    seen.add(k);
  }
  for (const [k, e] of want) if (!seen.has(k)) return { message: `missing series ${show(e.labels)}` };
  return null;
}

function compareMatrix(cmd: EvalCommand, got: readonly SeriesResult[], start: number, end: number, step: number): Mismatch | null {
  const want = new Map<string, ExpectedSeries>(cmd.expected.map((e) => [key(e.labels), e]));
  const seen = new Set<string>();
  for (const s of got) {
    const k = key(s.labels);
    const e = want.get(k);
    const gotText = (): string => Array.from(s.values, (v, i) => `${fmt(v)}@${s.timestamps[i]! / 1000}s`).join(' ');
    if (e === undefined) return { message: `unexpected series ${show(s.labels)}: ${gotText()}` };
    seen.add(k);
    const points: [number, number][] = [];
    for (let i = 0; i < e.values.length; i++) {
      const t = start + i * step;
      const v = e.values[i]!;
      if (t > end) return { message: `${show(e.labels)}: ${e.values.length} expected points do not fit the range` };
      if (v.kind === 'value') points.push([t, v.v]);
    }
    if (points.length !== s.timestamps.length) return { message: `${show(e.labels)}: want ${points.length} points, got ${s.timestamps.length}: ${gotText()}` };
    for (let i = 0; i < points.length; i++) {
      const [t, v] = points[i]!;
      if (s.timestamps[i] !== t) return { message: `${show(e.labels)} point ${i}: want t=${t / 1000}s, got ${gotText()}` };
      if (!almostEqual(v, s.values[i]!)) return { message: `${show(e.labels)} at ${t / 1000}s: want ${fmt(v)}, got ${gotText()}` };
    }
  }
  for (const [k, e] of want) if (!seen.has(k)) return { message: `missing series ${show(e.labels)}` };
  return null;
}

/** compareRange checks a range eval's matrix. */
export function compareRange(cmd: EvalCommand, res: QueryResult, g: { startMs: number; endMs: number; stepMs: number }): Mismatch | null {
  if (res.type !== 'matrix') return { message: `want a matrix, got ${res.type}` };
  return compareMatrix(cmd, res.matrix, g.startMs, g.endMs, g.stepMs);
}

/**
 * compareInstant checks an instant eval's result; with `atMs` the result is the range-mode
 * re-run and its points at atMs are compared.
 */
export function compareInstant(cmd: EvalCommand, res: QueryResult, atMs?: number): Mismatch | null {
  if (atMs !== undefined) {
    if (res.type !== 'matrix') return { message: `range query returned ${res.type}` };
    const at: Sample[] = [];
    for (const s of res.matrix) {
      const i = s.timestamps.indexOf(atMs);
      if (i >= 0) at.push({ labels: s.labels, value: s.values[i]! });
    }
    if (cmd.expectedScalar !== null) {
      if (at.length === 0) return { message: 'want a scalar, the range query has no point at the evaluation time' };
      return almostEqual(cmd.expectedScalar, at[0]!.value) ? null : { message: `want scalar ${fmt(cmd.expectedScalar)}, got ${fmt(at[0]!.value)}` };
    }
    return compareVector(cmd, at);
  }
  if (cmd.expectedString !== null) {
    if (res.type !== 'string') return { message: `want a string, got ${res.type}` };
    return res.value === cmd.expectedString ? null : { message: `want string ${JSON.stringify(cmd.expectedString)}, got ${JSON.stringify(res.value)}` };
  }
  if (cmd.expectedScalar !== null) {
    if (res.type !== 'scalar') return { message: `want scalar ${fmt(cmd.expectedScalar)}, got ${res.type}` };
    return almostEqual(cmd.expectedScalar, res.value) ? null : { message: `want scalar ${fmt(cmd.expectedScalar)}, got ${fmt(res.value)}` };
  }
  if (cmd.rangeVector !== null) {
    if (res.type !== 'matrix') return { message: `want a range vector, got ${res.type}` };
    return compareMatrix(cmd, res.matrix, cmd.rangeVector.startMs, cmd.rangeVector.endMs, cmd.rangeVector.stepMs);
  }
  if (res.type !== 'vector') return { message: `want an instant vector, got ${res.type}` };
  return compareVector(cmd, res.vector);
}
