// VictoriaMetrics' JSON lines carry NaN and infinities as bare words, which JSON has no spelling
// for: vmctl imports `"values":[0.5,NaN]` and VictoriaMetrics' own export writes `+Inf`. Its
// parser (fastjson) accepts [+-]?(nan|inf) in any letter case wherever a number may stand.

const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isBlank = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

/**
 * quoteBareSpecials returns text with every bare NaN, Inf or Infinity (any letter case, optional
 * sign) that stands as an element of an array put in quotes, so JSON.parse reads it as the string
 * the value parser understands; undefined when text has none. Words in strings, object values and
 * other bare words are left alone (JSON.parse rejects those as before).
 */
export function quoteBareSpecials(text: string): string | undefined {
  let out = '';
  let copied = 0;
  const open: number[] = [];
  // prev is the last character outside strings and blanks: a value starts after `[` or `,`.
  let prev = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isBlank(c)) continue;
    if (c === 34) {
      for (i++; i < text.length && text.charCodeAt(i) !== 34; i++) if (text.charCodeAt(i) === 92) i++;
      prev = 34;
      continue;
    }
    if (c === 91 || c === 123) open.push(c);
    else if (c === 93 || c === 125) open.pop();
    else if (open.at(-1) === 91 && (prev === 91 || prev === 44)) {
      const letters = c === 43 || c === 45 ? i + 1 : i;
      let end = letters;
      while (end < text.length && isLetter(text.charCodeAt(end))) end++;
      const word = text.slice(letters, end).toLowerCase();
      const after = end < text.length ? text.charCodeAt(end) : 93;
      if ((word === 'nan' || word === 'inf' || word === 'infinity') && (after === 44 || after === 93 || isBlank(after))) {
        out += `${text.slice(copied, i)}"${text.slice(i, end)}"`;
        copied = end;
        i = end - 1;
      }
    }
    prev = c;
  }
  return copied === 0 ? undefined : out + text.slice(copied);
}
