// Timestamp column formats of the CSV importer and exporter.

import { fail, quote } from '../common/line-failure.ts';
import { parseFloatText } from '../common/float.ts';
import { compileLayout, parseWithLayout } from './time-layout.ts';

/** TimeParser turns a CSV field into unix ms, or throws a LineFailure. */
export type TimeParser = (field: string) => number;

const RFC3339 = '2006-01-02T15:04:05Z07:00';

/**
 * timeParser returns the parser for a `time` column format: unix_s (fractional seconds keep ms),
 * unix_ms, unix_ns (truncated to ms), rfc3339 (fractional seconds allowed), or custom:<Go layout>.
 * Throws Error naming the problem for an unknown format.
 */
export function timeParser(format: string): TimeParser {
  if (format.startsWith('custom:')) {
    const layout = format.slice('custom:'.length);
    const tokens = compileLayout(layout);
    return (s) => parseWithLayout(tokens, s, layout);
  }
  switch (format) {
    case 'unix_s':
      return (s) => safeMs(Math.round(number(s) * 1000), s);
    case 'unix_ms':
      return (s) => safeMs(Math.round(number(s)), s);
    case 'unix_ns':
      return unixNs;
    case 'rfc3339': {
      const tokens = compileLayout(RFC3339);
      return (s) => parseWithLayout(tokens, s, RFC3339);
    }
    default:
      throw new Error(`unknown time format ${quote(format)}; supported: unix_s, unix_ms, unix_ns, rfc3339, custom:<layout>`);
  }
}

function number(s: string): number {
  const v = parseFloatText(s);
  if (!Number.isFinite(v)) fail(`cannot parse timestamp ${quote(s)}`);
  return v;
}

function safeMs(ms: number, s: string): number {
  if (!Number.isSafeInteger(ms)) fail(`timestamp ${quote(s)} is out of range`);
  return ms;
}

function unixNs(s: string): number {
  if (!/^-?\d+$/.test(s)) fail(`cannot parse timestamp ${quote(s)}`);
  const neg = s.startsWith('-');
  const digits = neg ? s.slice(1) : s;
  const ms = digits.length > 6 ? Number(digits.slice(0, -6)) : 0;
  safeMs(ms, s);
  return neg && ms !== 0 ? -ms : ms;
}

/** TimeUnit is how the exporter writes `__timestamp__`. */
export type TimeUnit = 'unix_s' | 'unix_ms' | 'unix_ns' | 'rfc3339';

/** formatTime renders ms in unit, losslessly (unix_s and rfc3339 carry a fraction when ms is not whole seconds). */
export function formatTime(ms: number, unit: TimeUnit): string {
  switch (unit) {
    case 'unix_ms':
      return String(ms);
    case 'unix_ns':
      return ms === 0 ? '0' : (BigInt(ms) * 1_000_000n).toString();
    case 'unix_s': {
      const abs = Math.abs(ms);
      const frac = abs % 1000;
      const whole = `${ms < 0 ? '-' : ''}${Math.floor(abs / 1000)}`;
      return frac === 0 ? whole : `${whole}.${String(frac).padStart(3, '0').replace(/0+$/, '')}`;
    }
    case 'rfc3339': {
      const iso = new Date(ms).toISOString();
      return ms % 1000 === 0 ? iso.replace('.000Z', 'Z') : iso;
    }
  }
}
