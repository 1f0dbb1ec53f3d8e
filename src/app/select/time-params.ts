import { parseDuration } from '../../lib/flags/index.ts';

// Timestamps accepted by the read API (../shared/design/DECISIONS.md "Timestamps accepted"):
// unix seconds (fractional), unix milliseconds, RFC 3339 (and its date-only prefixes), relative
// durations such as "-1h" (from now), and "now".

/** MS_THRESHOLD: numbers at or above it are milliseconds (1e11 ms is 1973; 1e11 s is the year 5138). */
const MS_THRESHOLD = 1e11;

const RFC3339 = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(\.\d+)?)?)?)?)?)?(Z|[+-]\d{2}:\d{2})?$/i;

/**
 * parseTimeParam parses one timestamp argument into integer milliseconds. `now` is the request's
 * time in ms. Throws an Error naming the text when it is none of the accepted forms.
 */
export function parseTimeParam(text: string, now: number): number {
  const s = text.trim();
  if (s === 'now') return now;
  if (/^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(s)) {
    const n = Number(s);
    const ms = Math.abs(n) >= MS_THRESHOLD ? n : n * 1000;
    return checkRange(Math.round(ms), text);
  }
  if (/^-[\d.]/.test(s)) {
    try {
      return checkRange(Math.round(now + parseDuration(s)), text);
    } catch {
      throw new Error(`cannot parse time "${text}": not a relative duration such as -1h`);
    }
  }
  const m = RFC3339.exec(s);
  if (m === null) {
    throw new Error(`cannot parse time "${text}": expected unix seconds, unix milliseconds, RFC 3339, a relative duration such as -1h, or now`);
  }
  const [, y, mo, d, h, mi, sec, frac, zone] = m;
  if (Number(mo ?? 1) > 12 || Number(mo ?? 1) < 1 || Number(d ?? 1) > 31 || Number(d ?? 1) < 1 || Number(h ?? 0) > 23 || Number(mi ?? 0) > 59 || Number(sec ?? 0) > 60) {
    throw new Error(`cannot parse time "${text}": a date or time field is out of range`);
  }
  const ms = Date.UTC(Number(y), Number(mo ?? 1) - 1, Number(d ?? 1), Number(h ?? 0), Number(mi ?? 0), Number(sec ?? 0), frac === undefined ? 0 : Math.round(Number(frac) * 1000));
  return checkRange(ms - zoneOffsetMs(zone), text);
}

function zoneOffsetMs(zone: string | undefined): number {
  if (zone === undefined || zone.toUpperCase() === 'Z') return 0;
  const sign = zone[0] === '-' ? -1 : 1;
  return sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
}

// Timestamps beyond ±year 292277026596 would not survive int64 nanoseconds elsewhere; JS Dates stop at ±8.64e15 ms.
const MAX_ABS_MS = 8.64e15;

function checkRange(ms: number, text: string): number {
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_ABS_MS) throw new Error(`cannot parse time "${text}": out of range`);
  return ms;
}

/**
 * parseStepParam parses a step or duration argument: a duration ("15s", "1m30s") or a number of
 * seconds ("15", "0.5"). Returns milliseconds; throws naming the text when invalid or not positive.
 */
export function parseStepParam(text: string, name = 'step'): number {
  const s = text.trim();
  let ms: number;
  if (/^(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(s)) ms = Number(s) * 1000;
  else {
    try {
      ms = parseDuration(s);
    } catch {
      throw new Error(`cannot parse ${name} "${text}": expected a duration such as 15s or a number of seconds`);
    }
  }
  if (!(ms > 0) || !Number.isFinite(ms)) throw new Error(`cannot parse ${name} "${text}": must be positive`);
  return Math.max(1, Math.round(ms));
}

export const DAY_MS = 86_400_000;

/**
 * dayRange rounds a range to whole UTC days, as /api/v1/series, /labels and /label/…/values do: the
 * default range is the current day from 00:00 UTC; explicit bounds are widened to their days.
 */
export function dayRange(start: number | undefined, end: number | undefined, now: number): { minTimestamp: number; maxTimestamp: number } {
  const e = end ?? now;
  const s = start ?? e;
  const lo = Math.floor(Math.min(s, e) / DAY_MS) * DAY_MS;
  const hi = Math.floor(Math.max(s, e) / DAY_MS) * DAY_MS + DAY_MS - 1;
  return { minTimestamp: lo, maxTimestamp: hi };
}
