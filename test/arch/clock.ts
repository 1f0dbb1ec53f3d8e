// The injected-clock rule (house rule: pure cores take options and an injected clock): a pure
// core never reads the wall clock itself; it takes `now: () => number` in its options and the
// thin shell passes Date.now. This file finds wall-clock reads in source text.

/** PURE_CORES are the path prefixes of pure-core code (tests, benchmarks and testdata excluded). */
export const PURE_CORES: readonly string[] = [
  'src/lib/storage/',
  'src/lib/storageapi/',
  'src/lib/query/',
  'src/lib/promql/',
  'src/lib/regexp/',
  'src/lib/protoparser/',
  'src/lib/backup/rules/',
  'src/app/backupmanager/scheduler.ts',
  'src/app/gateway/claims.ts',
  'src/app/gateway/limiter.ts',
  'src/app/gateway/path-policy.ts',
  'src/app/gateway/ratelimit-config.ts',
  'src/app/gateway/remote-keys.ts',
  'src/app/gateway/token-cache.ts',
  'src/app/gateway/token-verifier.ts',
  'src/app/gateway/usage-poller.ts',
  'src/app/gateway/usage-queries.ts',
  'operator/api/',
  'operator/factory/',
  'operator/reconcile/',
  'operator/controller/',
];

/** CLOCK_ALLOWED are the pure-core files that may read the wall clock, each with its reason. */
export const CLOCK_ALLOWED: Readonly<Record<string, string>> = {
  'src/lib/storage/common/fs-util.ts':
    'newPartName stamps part names with the real wall clock so a name is never reused, not even across restarts and restores; an injected (test) clock could repeat one',
  'src/lib/storageapi/contract-suite.ts':
    'test support, not a core: the storages under the contract tests run on the real clock (retention), so the fixture is anchored at the wall clock too',
};

const NON_PRODUCTION = /\.test\.ts$|\.test-helpers\.ts$|\.bench\.ts$|\/testdata\//;

/** isPureCore: file (repo-relative) is production code of a pure core. */
export function isPureCore(file: string): boolean {
  return PURE_CORES.some((p) => file.startsWith(p)) && !NON_PRODUCTION.test(file);
}

// Date.now(), new Date() / new Date (no arguments), and Date() called as a function (a string of now).
const WALL_CLOCK = /\bDate\s*\.\s*now\s*\(\s*\)|\bnew\s+Date\s*\(\s*\)|\bnew\s+Date\b(?!\s*\()|(?<![\w.$]|new\s+)Date\s*\(\s*\)/g;

/** clockReads returns the 1-based lines of text that read the wall clock (comments ignored). */
export function clockReads(text: string): number[] {
  // Blank comments out but keep newlines, so line numbers stay right.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  const lines: number[] = [];
  for (const m of code.matchAll(WALL_CLOCK)) lines.push(code.slice(0, m.index).split('\n').length);
  return lines;
}
