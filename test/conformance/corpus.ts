// The conformance corpora and a runner over a whole directory, shared by the vitest file and
// the run.ts script.

import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { runScript, type FileReport, type RunOptions } from './runner.ts';

export const CORPUS_ROOT = '/work/shared/conformance/promql-testdata';
export const MAIN_DIR = join(CORPUS_ROOT, 'prometheus-main');
export const V242_DIR = join(CORPUS_ROOT, 'prometheus-v2.42.0');

export interface Totals {
  passed: number;
  failed: number;
  skipped: number;
}

/** runDirectory runs every .test file of dir in name order. */
export async function runDirectory(dir: string, run: RunOptions = {}): Promise<FileReport[]> {
  const files = readdirSync(dir).filter((f) => f.endsWith('.test')).sort();
  const out: FileReport[] = [];
  for (const f of files) out.push(await runScript(basename(f), readFileSync(join(dir, f), 'utf8'), run));
  return out;
}

export function totals(reports: readonly FileReport[]): Totals {
  return reports.reduce((t, r) => ({ passed: t.passed + r.passed, failed: t.failed + r.failed, skipped: t.skipped + r.skipped }), { passed: 0, failed: 0, skipped: 0 });
}

/** passRate is passed / (passed + failed): skipped evals do not count. */
export function passRate(t: Totals): number {
  return t.passed + t.failed === 0 ? 1 : t.passed / (t.passed + t.failed);
}

/** formatTable renders the per-file table and the totals line. */
export function formatTable(title: string, reports: readonly FileReport[]): string {
  const rows = reports.map((r) => `${r.file.padEnd(28)} ${String(r.passed).padStart(6)} ${String(r.failed).padStart(6)} ${String(r.skipped).padStart(7)}`);
  const t = totals(reports);
  const reasons = new Map<string, number>();
  for (const r of reports) for (const [k, v] of r.skipReasons) reasons.set(k, (reasons.get(k) ?? 0) + v);
  return [
    `== ${title}`,
    `${'file'.padEnd(28)} ${'passed'.padStart(6)} ${'failed'.padStart(6)} ${'skipped'.padStart(7)}`,
    ...rows,
    `${'TOTAL'.padEnd(28)} ${String(t.passed).padStart(6)} ${String(t.failed).padStart(6)} ${String(t.skipped).padStart(7)}   pass rate ${(passRate(t) * 100).toFixed(1)}% of non-skipped`,
    ...[...reasons].map(([k, v]) => `  skipped ${v}: ${k}`),
  ].join('\n');
}
