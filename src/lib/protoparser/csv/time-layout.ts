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
  const sc = new Scanner(value, layout);
  for (let t = 0; t < tokens.length; t++) sc.token(tokens[t]!, tokens[t + 1]);
  if (sc.i !== value.length) sc.bad();
  return compose(sc.p, () => sc.bad());
}

// Scanner walks a value along the layout tokens, filling in the date parts.
class Scanner {
  readonly value: string;
  readonly layout: string;
  readonly p: Parts = { year: 1970, month: 1, day: 1, hour: 0, min: 0, sec: 0, ms: 0, pm: -1, offsetMin: 0 };
  i = 0;

  constructor(value: string, layout: string) {
    this.value = value;
    this.layout = layout;
  }

  bad(): never {
    return fail(`cannot parse time ${quote(this.value)} with layout ${quote(this.layout)}`);
  }

  token(tok: Token, next: Token | undefined): void {
    const p = this.p;
    const v = this.value;
    switch (tok.kind) {
      case 'lit':
        if (!v.startsWith(tok.text, this.i)) this.bad();
        this.i += tok.text.length;
        return;
      case 'year4': p.year = this.num(4, 4); return;
      case 'year2': { const y = this.num(2, 2); p.year = y >= 69 ? 1900 + y : 2000 + y; return; }
      case 'month2': p.month = this.num(2, 2); return;
      case 'month': p.month = this.num(1, 2); return;
      case 'monthName': p.month = this.word(MONTHS, 0) + 1; return;
      case 'monthShort': p.month = this.word(MONTHS, 3) + 1; return;
      case 'day2': p.day = this.num(2, 2); return;
      case 'day': p.day = this.num(1, 2); return;
      case 'dayPad': if (v[this.i] === ' ') this.i++; p.day = this.num(1, 2); return;
      case 'hour24': case 'hour12': p.hour = this.num(1, 2); return;
      case 'hour12pad': p.hour = this.num(2, 2); return;
      case 'min2': p.min = this.num(2, 2); return;
      case 'min': p.min = this.num(1, 2); return;
      case 'sec2': case 'sec':
        p.sec = this.num(tok.kind === 'sec2' ? 2 : 1, 2);
        // Go accepts fractional seconds after the seconds element even without a layout element for them.
        if ((v[this.i] === '.' || v[this.i] === ',') && /[0-9]/.test(v[this.i + 1] ?? '') && next?.kind !== 'frac') p.ms = this.fraction();
        return;
      case 'frac': this.frac(tok); return;
      case 'ampm': case 'AMPM': {
        const s = v.slice(this.i, this.i + 2).toUpperCase();
        if (s !== 'AM' && s !== 'PM') this.bad();
        p.pm = s === 'PM' ? 1 : 0;
        this.i += 2;
        return;
      }
      case 'weekday': this.word(DAYS, 0); return;
      case 'weekdayShort': this.word(DAYS, 3); return;
      case 'zoneName': {
        const m = /^[A-Z]{3,5}/.exec(v.slice(this.i));
        if (m === null) this.bad();
        this.i += m![0].length;
        return;
      }
      case 'zone': p.offsetMin = this.zone(tok); return;
    }
  }

  num(min: number, max: number): number {
    const v = this.value;
    let j = this.i;
    while (j < v.length && j - this.i < max && v.charCodeAt(j) >= 48 && v.charCodeAt(j) <= 57) j++;
    if (j - this.i < min) this.bad();
    const n = Number(v.slice(this.i, j));
    this.i = j;
    return n;
  }

  word(names: readonly string[], len: number): number {
    const v = this.value;
    const idx = names.findIndex((n) => v.slice(this.i, this.i + (len || n.length)).toLowerCase() === (len ? n.slice(0, len) : n).toLowerCase());
    if (idx < 0) this.bad();
    this.i += len || names[idx]!.length;
    return idx;
  }

  frac(tok: { digits: number; optional: boolean }): void {
    const c = this.value[this.i];
    if (tok.optional) {
      if (c === '.' || c === ',') this.p.ms = this.fraction();
      return;
    }
    if (c !== '.' && c !== ',') this.bad();
    const start = this.i;
    this.p.ms = this.fraction();
    if (this.i - start - 1 !== tok.digits) this.bad();
  }

  // fraction reads a separator and digits, returning whole milliseconds (extra digits truncated).
  fraction(): number {
    const v = this.value;
    this.i++;
    const start = this.i;
    while (this.i < v.length && v.charCodeAt(this.i) >= 48 && v.charCodeAt(this.i) <= 57) this.i++;
    if (this.i === start) this.bad();
    return Number(v.slice(start, Math.min(this.i, start + 3)).padEnd(3, '0'));
  }

  zone(tok: { z: boolean; colon: boolean; minutes: boolean }): number {
    const v = this.value;
    if (tok.z && (v[this.i] === 'Z' || v[this.i] === 'z')) {
      this.i++;
      return 0;
    }
    const sign = v[this.i] === '+' ? 1 : v[this.i] === '-' ? -1 : this.bad();
    this.i++;
    const h = this.num(2, 2);
    let m = 0;
    if (tok.minutes) {
      if (tok.colon) {
        if (v[this.i] !== ':') this.bad();
        this.i++;
      }
      m = this.num(2, 2);
    }
    if (h > 23 || m > 59) this.bad();
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
