// Go-style durations ("1h30m", "5m0s", "500ms", "1.5h"), extended with d, w and y (365d) as
// retention-style flags need them. Durations are held as milliseconds in a JS number.

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  y: 365 * 86_400_000,
};

const TERM = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h|d|w|y)/;

/**
 * parseDuration parses a Go-style duration into milliseconds. Accepts an optional sign, a
 * sequence of <number><unit> terms, and "0". Throws an Error naming the text on bad input.
 */
export function parseDuration(text: string): number {
  let s = text.trim();
  if (s === '') throw new Error(`cannot parse duration "${text}": empty value`);
  let sign = 1;
  if (s[0] === '-' || s[0] === '+') {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  let total = 0;
  while (s !== '') {
    const m = TERM.exec(s);
    if (m === null) {
      throw new Error(`cannot parse duration "${text}": expected <number><unit> with unit one of ns, us, ms, s, m, h, d, w, y`);
    }
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    s = s.slice(m[0].length);
  }
  if (!Number.isFinite(total)) throw new Error(`cannot parse duration "${text}": out of range`);
  return sign * total;
}

/** formatDuration prints milliseconds the way Go's time.Duration.String does ("1h30m0s", "500ms", "0s"). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const neg = ms < 0;
  let rest = Math.abs(ms);
  let out: string;
  if (rest < 1000) {
    out = rest >= 1 ? `${trimFloat(rest)}ms` : rest >= 1e-3 ? `${trimFloat(rest * 1e3)}µs` : `${trimFloat(rest * 1e6)}ns`;
  } else {
    const h = Math.floor(rest / 3_600_000);
    rest -= h * 3_600_000;
    const m = Math.floor(rest / 60_000);
    rest -= m * 60_000;
    const s = `${trimFloat(rest / 1000)}s`;
    out = h > 0 ? `${h}h${m}m${s}` : m > 0 ? `${m}m${s}` : s;
  }
  return neg ? `-${out}` : out;
}

function trimFloat(v: number): string {
  return String(Number(v.toFixed(9)));
}
