// Go reference-time layouts ("2006-01-02T15:04:05Z07:00") for CSV `time:custom:<layout>` and
// `time:rfc3339`, parsed the way Go's time.Parse reads them, for these elements:
//   2006 06 | 01 1 Jan January | 02 2 _2 | 15 03 3 | 04 4 | 05 5 | PM pm | Mon Monday |
//   Z07:00 Z0700 Z07 -07:00 -0700 -07 | MST | .000 .999 ,000 ,999 (any count)
// Everything else in the layout is literal text. As in Go, a value may carry fractional seconds
// after the seconds element even when the layout has none, zone letters other than UTC/GMT are
// taken as UTC (Go does the same for abbreviations it does not know), and sub-millisecond digits
// are truncated. Not supported: day of year (002), __2, and the deprecated layout spellings.

import { fail, quote } from '../common/line-failure.ts';

type Token =
  | { readonly kind: 'lit'; readonly text: string }
  | { readonly kind: 'year4' | 'year2' | 'month2' | 'month' | 'monthName' | 'monthShort' | 'day2' | 'day' | 'dayPad' }
  | { readonly kind: 'hour24' | 'hour12pad' | 'hour12' | 'min2' | 'min' | 'sec2' | 'sec' | 'ampm' | 'AMPM' }
  | { readonly kind: 'weekday' | 'weekdayShort' | 'zoneName' }
  | { readonly kind: 'zone'; readonly z: boolean; readonly colon: boolean; readonly minutes: boolean }
  | { readonly kind: 'frac'; readonly digits: number; readonly optional: boolean };

// Longest spellings first, so "January" wins over "Jan" and "2006" over "2".
const ELEMENTS: readonly [string, Token][] = [
  ['January', { kind: 'monthName' }], ['Jan', { kind: 'monthShort' }], ['Monday', { kind: 'weekday' }], ['Mon', { kind: 'weekdayShort' }],
  ['MST', { kind: 'zoneName' }], ['2006', { kind: 'year4' }], ['Z07:00', { kind: 'zone', z: true, colon: true, minutes: true }],
  ['Z0700', { kind: 'zone', z: true, colon: false, minutes: true }], ['Z07', { kind: 'zone', z: true, colon: false, minutes: false }],
  ['-07:00', { kind: 'zone', z: false, colon: true, minutes: true }], ['-0700', { kind: 'zone', z: false, colon: false, minutes: true }],
  ['-07', { kind: 'zone', z: false, colon: false, minutes: false }], ['01', { kind: 'month2' }], ['02', { kind: 'day2' }], ['_2', { kind: 'dayPad' }],
  ['03', { kind: 'hour12pad' }], ['04', { kind: 'min2' }], ['05', { kind: 'sec2' }], ['06', { kind: 'year2' }], ['15', { kind: 'hour24' }],
  ['PM', { kind: 'AMPM' }], ['pm', { kind: 'ampm' }], ['1', { kind: 'month' }], ['2', { kind: 'day' }], ['3', { kind: 'hour12' }],
  ['4', { kind: 'min' }], ['5', { kind: 'sec' }],
];

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** compileLayout turns a Go layout into tokens; throws Error when the layout has no date or time element. */
export function compileLayout(layout: string): Token[] {
  const out: Token[] = [];
  let lit = '';
  for (let i = 0; i < layout.length; ) {
    const c = layout[i]!;
    if ((c === '.' || c === ',') && (layout[i + 1] === '0' || layout[i + 1] === '9')) {
      const d = layout[i + 1]!;
      let j = i + 1;
      while (layout[j] === d) j++;
      if (!/[0-9]/.test(layout[j] ?? '')) {
        if (lit !== '') out.push({ kind: 'lit', text: lit });
        lit = '';
        out.push({ kind: 'frac', digits: j - i - 1, optional: d === '9' });
        i = j;
        continue;
      }
    }
    const el = ELEMENTS.find(([text]) => layout.startsWith(text, i));
    if (el === undefined) {
      lit += c;
      i++;
      continue;
    }
    if (lit !== '') out.push({ kind: 'lit', text: lit });
    lit = '';
    out.push(el[1]);
    i += el[0].length;
  }
  if (lit !== '') out.push({ kind: 'lit', text: lit });
  if (!out.some((t) => t.kind !== 'lit')) throw new Error(`layout ${quote(layout)} has no date or time element`);
  return out;
}

interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  min: number;
  sec: number;
  ms: number;
  pm: number; // -1 none, 0 am, 1 pm
  offsetMin: number;
}

/** parseWithLayout parses value by compiled tokens and returns unix ms; throws a LineFailure when it does not match. */
export function parseWithLayout(tokens: readonly Token[], value: string, layout: string): number {
  const p: Parts = { year: 1970, month: 1, day: 1, hour: 0, min: 0, sec: 0, ms: 0, pm: -1, offsetMin: 0 };
  let i = 0;
  const bad = (): never => fail(`cannot parse time ${quote(value)} with layout ${quote(layout)}`);
  const num = (min: number, max: number): number => {
    let j = i;
    while (j < value.length && j - i < max && value.charCodeAt(j) >= 48 && value.charCodeAt(j) <= 57) j++;
    if (j - i < min) bad();
    const n = Number(value.slice(i, j));
    i = j;
    return n;
  };
  const word = (names: readonly string[], len: number): number => {
    const idx = names.findIndex((n) => value.slice(i, i + (len || n.length)).toLowerCase() === (len ? n.slice(0, len) : n).toLowerCase());
    if (idx < 0) bad();
    i += len || names[idx]!.length;
    return idx;
  };
  for (let t = 0; t < tokens.length; t++) {
    const tok = tokens[t]!;
    switch (tok.kind) {
      case 'lit':
        if (!value.startsWith(tok.text, i)) bad();
        i += tok.text.length;
        break;
      case 'year4': p.year = num(4, 4); break;
      case 'year2': { const y = num(2, 2); p.year = y >= 69 ? 1900 + y : 2000 + y; break; }
      case 'month2': p.month = num(2, 2); break;
      case 'month': p.month = num(1, 2); break;
      case 'monthName': p.month = word(MONTHS, 0) + 1; break;
      case 'monthShort': p.month = word(MONTHS, 3) + 1; break;
      case 'day2': p.day = num(2, 2); break;
      case 'day': p.day = num(1, 2); break;
      case 'dayPad': if (value[i] === ' ') i++; p.day = num(1, 2); break;
      case 'hour24': p.hour = num(1, 2); break;
      case 'hour12pad': p.hour = num(2, 2); break;
      case 'hour12': p.hour = num(1, 2); break;
      case 'min2': p.min = num(2, 2); break;
      case 'min': p.min = num(1, 2); break;
      case 'sec2':
      case 'sec':
        p.sec = num(tok.kind === 'sec2' ? 2 : 1, 2);
        // Go accepts fractional seconds after the seconds element even without a layout element for them.
        if ((value[i] === '.' || value[i] === ',') && /[0-9]/.test(value[i + 1] ?? '') && tokens[t + 1]?.kind !== 'frac') p.ms = fraction();
        break;
      case 'frac':
        if (tok.optional) {
          if (value[i] === '.' || value[i] === ',') p.ms = fraction();
        } else {
          if (value[i] !== '.' && value[i] !== ',') bad();
          const start = i;
          p.ms = fraction();
          if (i - start - 1 !== tok.digits) bad();
        }
        break;
      case 'ampm':
      case 'AMPM': {
        const s = value.slice(i, i + 2).toUpperCase();
        if (s !== 'AM' && s !== 'PM') bad();
        p.pm = s === 'PM' ? 1 : 0;
        i += 2;
        break;
      }
      case 'weekday': word(DAYS, 0); break;
      case 'weekdayShort': word(DAYS, 3); break;
      case 'zoneName': {
        const m = /^[A-Z]{3,5}/.exec(value.slice(i));
        if (m === null) bad();
        i += m![0].length;
        break;
      }
      case 'zone': p.offsetMin = zone(tok); break;
    }
  }
  if (i !== value.length) bad();
  return compose(p, bad);

  function fraction(): number {
    i++; // the separator
    const start = i;
    while (i < value.length && value.charCodeAt(i) >= 48 && value.charCodeAt(i) <= 57) i++;
    if (i === start) bad();
    return Number(value.slice(start, Math.min(i, start + 3)).padEnd(3, '0'));
  }

  function zone(tok: { z: boolean; colon: boolean; minutes: boolean }): number {
    if (tok.z && (value[i] === 'Z' || value[i] === 'z')) {
      i++;
      return 0;
    }
    const sign = value[i] === '+' ? 1 : value[i] === '-' ? -1 : bad();
    i++;
    const h = num(2, 2);
    let m = 0;
    if (tok.minutes) {
      if (tok.colon) {
        if (value[i] !== ':') bad();
        i++;
      }
      m = num(2, 2);
    }
    if (h > 23 || m > 59) bad();
    return sign * (h * 60 + m);
  }
}

function compose(p: Parts, bad: () => never): number {
  let hour = p.hour;
  if (p.pm >= 0) {
    if (hour < 1 || hour > 12) bad();
    hour = (hour % 12) + (p.pm === 1 ? 12 : 0);
  }
  if (p.month < 1 || p.month > 12 || p.day < 1 || hour > 23 || p.min > 59 || p.sec > 59) bad();
  const d = new Date(0);
  d.setUTCFullYear(p.year, p.month, 0); // day 0 of the next month: the last day of this one
  if (p.day > d.getUTCDate()) bad();
  d.setUTCFullYear(p.year, p.month - 1, p.day);
  d.setUTCHours(hour, p.min, p.sec, p.ms);
  return d.getTime() - p.offsetMin * 60_000;
}
