// In-process runner of promqltest scripts: loads data into a MemorySearcher, evaluates every
// eval with our engine and compares results as Prometheus' harness does (including the
// range-mode re-check of instant evals at [t-1m, t+1m] step 1m).

import { ParseError } from '../../src/lib/promql/index.ts';
import { instant, MemorySearcher, QueryError, range, type QueryOptions, type QueryResult, type RollupOffload } from '../../src/lib/query/index.ts';
import { LimitExceededError, STALE_NAN, type Labels, type Searcher, type Tenant } from '../../src/lib/storageapi/index.ts';
import { compareInstant, compareRange, type Mismatch } from './compare.ts';
import { parseScript, type EvalCommand, type LoadCommand } from './script.ts';
import { skipReason } from './skips.ts';

export interface Failure {
  readonly line: number;
  readonly query: string;
  readonly message: string;
}

export interface FileReport {
  readonly file: string;
  passed: number;
  failed: number;
  skipped: number;
  readonly failures: Failure[];
  readonly skipReasons: Map<string, number>;
}

const TENANT = { accountID: 0, projectID: 0 };
const OPTIONS: QueryOptions = { now: () => 0, lookbackDeltaMs: 300_000, subqueryStepMs: 60_000 };

/**
 * ScriptStore holds a script's loaded samples: add and clear them, and the Searcher the engine
 * queries. The default is one MemorySearcher; the cluster test spreads samples over storage nodes
 * and queries through its fan-out.
 */
export interface ScriptStore {
  add(tenant: Tenant, labels: Labels, timestamp: number, value: number): void;
  clear(): void;
  readonly searcher: Searcher;
}

/**
 * RunOptions: closedWindows runs the engine with Prometheus 2 windows (for the v2.42.0 corpus);
 * store makes the store of each file (default: a MemorySearcher).
 */
export interface RunOptions {
  readonly closedWindows?: boolean;
  /** rollupOffload evaluates rollups with it (the query worker pool) instead of in the engine's loop. */
  readonly rollupOffload?: RollupOffload;
  readonly store?: () => ScriptStore;
}

function memoryStore(): ScriptStore {
  const db = new MemorySearcher();
  return { add: (t, l, ts, v) => db.add(t, l, ts, v), clear: () => db.clear(), searcher: db };
}

class FileState {
  readonly store: ScriptStore;
  readonly options: QueryOptions;
  histogramSeries: Labels[] = [];
  startTimestamps = false;

  constructor(run: RunOptions) {
    this.options = { ...OPTIONS, closedWindows: run.closedWindows === true, rollupOffload: run.rollupOffload };
    this.store = (run.store ?? memoryStore)();
  }

  get db(): Searcher {
    return this.store.searcher;
  }

  clear(): void {
    this.store.clear();
    this.histogramSeries = [];
    this.startTimestamps = false;
  }

  load(cmd: LoadCommand): void {
    if (cmd.startTimestamps) this.startTimestamps = true;
    // A later definition of the same label set within one load replaces the earlier one.
    const defs = new Map<string, LoadCommand['series'][number]>();
    for (const s of cmd.series) defs.set(JSON.stringify(s.labels), s);
    for (const s of defs.values()) {
      const name = s.labels.find((l) => l.name === '__name__')?.value ?? '';
      // load_with_nhcb also converts `x_bucket{le}` series into a native histogram series `x`.
      if (cmd.withNhcb && name.endsWith('_bucket')) {
        this.histogramSeries.push(s.labels.filter((l) => l.name !== 'le').map((l) => (l.name === '__name__' ? { name: l.name, value: name.slice(0, -7) } : l)));
      }
      if (s.values.some((v) => v.kind === 'histogram')) this.histogramSeries.push(s.labels);
      s.values.forEach((v, i) => {
        const t = i * cmd.intervalMs;
        if (v.kind === 'value') this.store.add(TENANT, s.labels, t, v.v);
        else if (v.kind === 'stale') this.store.add(TENANT, s.labels, t, STALE_NAN);
      });
    }
  }
}

const isQueryError = (e: unknown): boolean => e instanceof ParseError || e instanceof QueryError || e instanceof LimitExceededError;

async function runQuery(st: FileState, cmd: EvalCommand, mode: 'instant' | 'range' | 'check'): Promise<QueryResult> {
  if (mode === 'range') return range(st.db, cmd.query, cmd.range!.startMs, cmd.range!.endMs, cmd.range!.stepMs, st.options);
  const t = cmd.instant!.timeMs;
  if (mode === 'check') return range(st.db, cmd.query, t - 60_000, t + 60_000, 60_000, st.options);
  return instant(st.db, cmd.query, t, st.options);
}

// evalOnce returns null on success or the mismatch.
async function evalOnce(st: FileState, cmd: EvalCommand): Promise<Mismatch | null> {
  const mode = cmd.range !== null ? 'range' : 'instant';
  let res: QueryResult;
  try {
    res = await runQuery(st, cmd, mode);
  } catch (err) {
    if (cmd.fail && isQueryError(err)) return null;
    return { message: `query failed: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}` };
  }
  if (cmd.fail) return { message: 'expected the query to fail, but it succeeded' };
  const m = mode === 'range' ? compareRange(cmd, res, cmd.range!) : compareInstant(cmd, res);
  if (m !== null || mode === 'range') return m;
  if (cmd.ordered || cmd.expectedString !== null || cmd.rangeVector !== null) return null;
  if (/\b(start|end|range|step)\(\)/.test(cmd.query)) return null;
  try {
    const check = await runQuery(st, cmd, 'check');
    const r = compareInstant(cmd, check, cmd.instant!.timeMs);
    return r === null ? null : { message: `[range-mode check] ${r.message}` };
  } catch (err) {
    return { message: `[range-mode check] query failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** runScript runs one script's commands and returns its report. */
export async function runScript(file: string, text: string, run: RunOptions = {}): Promise<FileReport> {
  const report: FileReport = { file, passed: 0, failed: 0, skipped: 0, failures: [], skipReasons: new Map() };
  const st = new FileState(run);
  for (const cmd of parseScript(text)) {
    if (cmd.type === 'clear') st.clear();
    else if (cmd.type === 'load') st.load(cmd);
    else {
      const reason = skipReason(cmd, { file, histogramSeries: st.histogramSeries, startTimestamps: st.startTimestamps });
      if (reason !== null) {
        report.skipped++;
        report.skipReasons.set(reason, (report.skipReasons.get(reason) ?? 0) + 1);
        continue;
      }
      const m = await evalOnce(st, cmd);
      if (m === null) report.passed++;
      else {
        report.failed++;
        report.failures.push({ line: cmd.line, query: cmd.query, message: m.message });
      }
    }
  }
  return report;
}
