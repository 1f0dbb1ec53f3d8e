// How a query worker loads its code without a TypeScript stripper of its own.
//
// Why: Node strips types with a WebAssembly build of swc, instantiated in every isolate that loads
// a .ts file. In a worker that is ~18 MiB of RSS for 39 small modules (two workers: +56 MiB over
// the process, +21 MiB when the modules come as JavaScript). So the main thread, which has the
// stripper loaded anyway, strips the worker's modules once, and the worker starts from a small
// JavaScript bootstrap whose load hook serves them: its isolate never loads the stripper.

import { readFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';

/** WorkerSource is what a worker is started with: its entry module and the modules' JavaScript by URL. */
export interface WorkerSource {
  readonly entry: string;
  readonly sources: readonly (readonly [string, string])[];
}

/**
 * WORKER_BOOT is the worker's bootstrap (CommonJS, run with `eval: true`): it serves the stripped
 * modules of workerData (a WorkerSource) to the module loader, then imports the entry. A module
 * it was not given (an import the walk below missed) is loaded by Node as usual.
 */
export const WORKER_BOOT = `
const { registerHooks } = require('node:module');
const { workerData } = require('node:worker_threads');
const sources = new Map(workerData.sources);
registerHooks({ load(url, context, next) {
  const source = sources.get(url);
  return source === undefined ? next(url, context) : { format: 'module', source, shortCircuit: true };
} });
import(workerData.entry).catch((err) => { process.nextTick(() => { throw err; }); });
`;

const cache = new Map<string, WorkerSource>();

/**
 * workerSource strips entry and every project module it imports (relative ".ts" specifiers,
 * followed transitively; type-only imports are included and simply never asked for) once per
 * entry. Throws naming the file it cannot read.
 */
export function workerSource(entry: URL): WorkerSource {
  const known = cache.get(entry.href);
  if (known !== undefined) return known;
  const sources = new Map<string, string>();
  const walk = (url: URL): void => {
    if (sources.has(url.href)) return;
    let ts: string;
    try {
      ts = readFileSync(url, 'utf8');
    } catch (err) {
      throw new Error(`cannot read query worker module "${url.pathname}": ${(err as Error).message}`, { cause: err });
    }
    sources.set(url.href, strip(ts));
    for (const m of ts.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'(\.\.?\/[^']+\.ts)'/g)) walk(new URL(m[1]!, url));
  };
  walk(entry);
  const out = { entry: entry.href, sources: [...sources] };
  cache.set(entry.href, out);
  return out;
}

// strip is stripTypeScriptTypes without its one-time ExperimentalWarning on stderr: Node runs
// every source of this project through the same stripper, so the warning says nothing here.
function strip(ts: string): string {
  const emit = process.emitWarning;
  process.emitWarning = () => undefined;
  try {
    return stripTypeScriptTypes(ts, { mode: 'strip' });
  } finally {
    process.emitWarning = emit;
  }
}
