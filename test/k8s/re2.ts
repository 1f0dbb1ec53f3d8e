// re2RegExp compiles a schema `pattern` (Go RE2 syntax, as the API server evaluates it) into a
// JavaScript RegExp that matches the same strings for the syntax both share. The one difference
// that matters for our patterns: RE2's `.` matches every character except "\n", JavaScript's
// also refuses "\r", "\u2028" and "\u2029".

/** re2Source rewrites an RE2 pattern into JavaScript (u-flag) source. */
export function re2Source(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      out += c + (pattern[i + 1] ?? '');
      i++;
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
    } else {
      out += c === '.' ? '[^\\n]' : c;
    }
  }
  return out;
}

/** re2RegExp is `new RegExp` for an RE2 pattern (Unicode mode, as RE2 works on runes). */
export function re2RegExp(pattern: string, flags = ''): RegExp {
  return new RegExp(re2Source(pattern), flags.includes('u') ? flags : `${flags}u`);
}
