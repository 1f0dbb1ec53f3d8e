import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../e2e/process-harness.ts';
import { CLOCK_ALLOWED, clockReads, isPureCore, PURE_CORES } from './clock.ts';
import { listSourceFiles } from './imports.ts';

const files = listSourceFiles(repoRoot, ['src', 'operator']).map((f) => relative(repoRoot, f).split(sep).join('/'));

describe('clockReads', () => {
  it('finds wall-clock reads and ignores clocks passed in, dates built from a time, and comments', () => {
    const f = (text: string, want: number[]) => expect(clockReads(text), text).toEqual(want);
    // Reads of the wall clock.
    f('const t = Date.now();', [1]);
    f('x;\nconst d = new Date();', [2]);
    f('const d = new Date;', [1]);
    f('const s = Date();', [1]);
    f('const t = Date . now ( );', [1]);
    // The clock as a value (what thin shells pass), and dates of a given time.
    f('const o = { now: Date.now };', []);
    f('const d = new Date(ts).toISOString();', []);
    f('const u = Date.UTC(2024, 0, 1); const p = Date.parse(s);', []);
    f('myDate(); x.Date(); const nowDate = 1;', []);
    // Comments do not count; line numbers survive block comments.
    f('// Date.now()\n/* new Date()\n */ Date.now();', [3]);
  });

  it('treats tests, benchmarks and testdata as outside the cores', () => {
    expect(isPureCore('src/lib/storage/storage.ts')).toBe(true);
    expect(isPureCore('operator/reconcile/status.ts')).toBe(true);
    expect(isPureCore('src/lib/storage/storage.test.ts')).toBe(false);
    expect(isPureCore('src/lib/storage/testdata/helpers.ts')).toBe(false);
    expect(isPureCore('src/lib/protoparser/prometheus/parse.bench.ts')).toBe(false);
    expect(isPureCore('src/app/insert/flags.ts')).toBe(false);
  });
});

describe('pure cores', () => {
  it('take their clock from options instead of reading the wall clock', () => {
    const bad = files.filter((f) => isPureCore(f) && CLOCK_ALLOWED[f] === undefined)
      .flatMap((f) => clockReads(readFileSync(join(repoRoot, f), 'utf8')).map((line) => `${f}:${line}`));
    expect(bad).toEqual([]);
  });

  it('list only allowances that are still needed', () => {
    const stale = Object.keys(CLOCK_ALLOWED).filter((f) => !files.includes(f) || clockReads(readFileSync(join(repoRoot, f), 'utf8')).length === 0);
    expect(stale).toEqual([]);
    expect(PURE_CORES.filter((p) => !files.some((f) => f.startsWith(p)))).toEqual([]);
  });
});
