// Parser of Prometheus' promqltest scripts (promql/promqltest/README.md): load, clear, eval
// (instant/range) with expectations, including the legacy eval_fail/eval_ordered forms.

import { parse, ParseError } from '../../src/lib/promql/index.ts';
import { ScriptError } from './script-error.ts';
import { parseSeriesDesc, type SeriesDesc } from './series-desc.ts';

export interface LoadCommand {
  readonly type: 'load';
  readonly line: number;
  readonly intervalMs: number;
  readonly withNhcb: boolean;
  readonly series: (SeriesDesc & { readonly line: number })[];
  /** startTimestamps: the block has `metric@st` lines (start timestamps, not supported). */
  readonly startTimestamps: boolean;
}

export interface ClearCommand {
  readonly type: 'clear';
  readonly line: number;
}

export interface ExpectedSeries extends SeriesDesc {
  /** pos: 1-based position, for ordered evals. */
  readonly pos: number;
}

export interface EvalCommand {
  readonly type: 'eval';
  readonly line: number;
  readonly query: string;
  readonly instant: { readonly timeMs: number } | null;
  readonly range: { readonly startMs: number; readonly endMs: number; readonly stepMs: number } | null;
  readonly fail: boolean;
  readonly ordered: boolean;
  readonly expectedScalar: number | null;
  readonly expectedString: string | null;
  readonly rangeVector: { readonly startMs: number; readonly endMs: number; readonly stepMs: number } | null;
  readonly expected: ExpectedSeries[];
  /** rawExpected: the expectation lines as written (skip rules look at them). */
  readonly rawExpected: string[];
}

export type Command = LoadCommand | ClearCommand | EvalCommand;

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, y: 31_536_000_000 };

/** parseTime reads `50m`, `10s53ms`, `1000`, `1.5` (seconds), `-1m` into milliseconds. */
export function parseTime(text: string): number {
  const s = text.trim();
  const sign = s.startsWith('-') ? -1 : 1;
  const body = s.replace(/^[+-]/, '');
  if (/^\d+(\.\d+)?$/.test(body)) return sign * Math.round(Number(body) * 1000);
  const re = /(\d+)(ms|y|w|d|h|m|s)/y;
  let total = 0;
  let pos = 0;
  for (let m = re.exec(body); m !== null; m = re.exec(body)) {
    total += Number(m[1]) * UNITS[m[2]!]!;
    pos = re.lastIndex;
  }
  if (pos === 0 || pos !== body.length) throw new ScriptError(`invalid duration ${JSON.stringify(text)}`);
  return sign * total;
}

const LOAD = /^load(_with_nhcb)?\s+(\S+)$/;
const EVAL_INSTANT = /^eval(?:_(fail|warn|ordered|info))?\s+instant\s+(?:at\s+(\S+)\s+)?(.+)$/;
const EVAL_RANGE = /^eval(?:_(fail|warn|info))?\s+range\s+from\s+(\S+)\s+to\s+(\S+)\s+step\s+(\S+)\s+(.+)$/;
const EXPECT_RANGE = /^expect\s+range\s+vector\s+from\s+(\S+)\s+to\s+(\S+)\s+step\s+(\S+)$/;

/** parseScript parses a whole .test file (lines are 1-based); throws ScriptError on bad input. */
export function parseScript(text: string): Command[] {
  try {
    return parseCommands(text);
  } catch (err) {
    if (err instanceof ParseError) throw new ScriptError(`invalid series or string: ${err.message}`, { cause: err });
    throw err;
  }
}

function parseCommands(text: string): Command[] {
  const lines = text.split('\n').map((l) => (l.trim().startsWith('#') ? '' : l.trim()));
  const out: Command[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l === '') continue;
    const word = l.split(/\s+/, 1)[0]!.toLowerCase();
    if (word === 'clear') {
      out.push({ type: 'clear', line: i + 1 });
    } else if (word.startsWith('load')) {
      const m = LOAD.exec(l);
      if (!m) throw new ScriptError(`line ${i + 1}: invalid load command ${JSON.stringify(l)}`);
      const series: LoadCommand['series'] = [];
      let startTimestamps = false;
      while (i + 1 < lines.length && lines[i + 1] !== '') {
        const def = lines[++i]!;
        if (/^\S*@st\s/.test(def)) startTimestamps = true;
        else series.push({ ...parseSeriesDesc(def), line: i + 1 });
      }
      out.push({ type: 'load', line: i + 1, intervalMs: parseTime(m[2]!), withNhcb: m[1] !== undefined, series, startTimestamps });
    } else if (word.startsWith('eval')) {
      const [cmd, next] = parseEval(lines, i);
      out.push(cmd);
      i = next;
    } else {
      throw new ScriptError(`line ${i + 1}: invalid command ${JSON.stringify(l)}`);
    }
  }
  return out;
}

function parseEval(lines: readonly string[], at: number): [EvalCommand, number] {
  const head = lines[at]!;
  const im = EVAL_INSTANT.exec(head);
  const rm = im ? null : EVAL_RANGE.exec(head);
  if (!im && !rm) throw new ScriptError(`line ${at + 1}: invalid eval command ${JSON.stringify(head)}`);
  const mod = im ? im[1] : rm![1];
  let fail = mod === 'fail';
  let ordered = mod === 'ordered';
  let expectedScalar: number | null = null;
  let expectedString: string | null = null;
  let rangeVector: EvalCommand['rangeVector'] = null;
  const expected: ExpectedSeries[] = [];
  const rawExpected: string[] = [];
  let i = at;
  while (i + 1 < lines.length && lines[i + 1] !== '') {
    const def = lines[++i]!;
    rawExpected.push(def);
    if (/^expected_fail_(message|regexp)\b/.test(def)) continue;
    const rv = EXPECT_RANGE.exec(def);
    if (rv) {
      rangeVector = { startMs: parseTime(rv[1]!), endMs: parseTime(rv[2]!), stepMs: parseTime(rv[3]!) };
      continue;
    }
    if (def.startsWith('expect string')) {
      expectedString = readQuoted(def.slice('expect string'.length).trim());
      continue;
    }
    if (/^expect\s/.test(def)) {
      const kind = def.split(/\s+/)[1];
      if (kind === 'fail') fail = true;
      if (kind === 'ordered') ordered = true;
      continue;
    }
    const num = parseScalar(def);
    if (num !== null) {
      expectedScalar = num;
      continue;
    }
    expected.push({ ...parseSeriesDesc(def), pos: expected.length + 1 });
  }
  const query = im ? im[3]! : rm![5]!;
  const cmd: EvalCommand = {
    type: 'eval', line: at + 1, query,
    instant: im ? { timeMs: parseTime(im[2] ?? '0') } : null,
    range: rm ? { startMs: parseTime(rm[2]!), endMs: parseTime(rm[3]!), stepMs: parseTime(rm[4]!) } : null,
    fail, ordered, expectedScalar, expectedString, rangeVector, expected, rawExpected,
  };
  return [cmd, i];
}

function parseScalar(s: string): number | null {
  const t = s.trim();
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(t)) return NaN;
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return Number(t);
  return null;
}

// readQuoted decodes the expected string of `expect string "…"` with the PromQL lexer.
function readQuoted(s: string): string {
  const e = parse(s);
  if (e.type !== 'StringLiteral') throw new ScriptError(`expected a quoted string, got ${s}`);
  return e.value;
}
