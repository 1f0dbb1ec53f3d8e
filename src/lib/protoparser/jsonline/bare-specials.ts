// VictoriaMetrics before 1.9x exported the values JSON cannot hold bare, as Go spells them:
// `"values":[+Inf,-Inf,NaN]` (staleness markers included, as NaN). Its importer reads such lines
// (fastjson accepts inf and nan, any case, with a sign), so exports of those versions are
// importable there; JSON.parse refuses them. quoteBareSpecials rewrites those tokens into JSON
// strings, which sampleValue then reads like any quoted special value.

const QUOTE = 34;
const BACKSLASH = 92;
// A bare special value: an optional sign and inf, infinity or nan in any letter case, not followed
// by another name character (so `nancy` or `info` stay what they are: invalid JSON).
const SPECIAL = /[+-]?(?:infinity|inf|nan)(?![A-Za-z0-9_])/iy;

/**
 * quoteBareSpecials returns the line with every bare `Inf`, `+Inf`, `-Inf`, `Infinity`, `NaN`
 * (any case, optional sign) outside JSON strings put in quotes, or undefined when it holds none.
 * Only called for a line JSON.parse refused, so well-formed lines cost nothing.
 */
export function quoteBareSpecials(line: string): string | undefined {
  let out: string | undefined;
  let last = 0;
  const n = line.length;
  for (let i = 0; i < n; i++) {
    const c = line.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < n && line.charCodeAt(i) !== QUOTE; i++) if (line.charCodeAt(i) === BACKSLASH) i++;
      continue;
    }
    // Only where a value may start: a letter or sign right after a name character is not one.
    if (!startsSpecial(c) || (i > 0 && isNameChar(line.charCodeAt(i - 1)))) continue;
    SPECIAL.lastIndex = i;
    const m = SPECIAL.exec(line);
    if (m === null) continue;
    out = `${out ?? ''}${line.slice(last, i)}"${m[0]}"`;
    i += m[0].length - 1;
    last = i + 1;
  }
  return out === undefined ? undefined : out + line.slice(last);
}

// + - I i N n
function startsSpecial(c: number): boolean {
  return c === 43 || c === 45 || c === 73 || c === 105 || c === 78 || c === 110;
}

function isNameChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46;
}
