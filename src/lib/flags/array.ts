/**
 * splitArrayValue splits one occurrence of an array flag on commas. An element wrapped in double
 * or single quotes may contain commas; inside double quotes, \" and \\ are escapes. Empty input
 * gives one empty element, as the flag was given.
 */
export function splitArrayValue(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    const q = text[i];
    if (q === '"' || q === "'") {
      const [element, next] = readQuoted(text, i, q);
      out.push(element);
      i = next;
      if (i === text.length) return out;
      if (text[i] !== ',') {
        throw new Error(`cannot parse array value ${JSON.stringify(text)}: expected "," after quoted element at position ${i}`);
      }
      i++;
      continue;
    }
    const comma = text.indexOf(',', i);
    if (comma < 0) {
      out.push(text.slice(i));
      return out;
    }
    out.push(text.slice(i, comma));
    i = comma + 1;
  }
}

function readQuoted(text: string, start: number, quote: string): [string, number] {
  let element = '';
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === quote) return [element, i + 1];
    if (c === '\\' && quote === '"' && i + 1 < text.length) {
      element += text[++i];
      continue;
    }
    element += c;
  }
  throw new Error(`cannot parse array value ${JSON.stringify(text)}: unterminated quote starting at position ${start}`);
}
