// Char codes the line parsers compare against (UTF-16 code units of text and UTF-8 bytes alike:
// every one is ASCII). One list, so a parser reads `c === LBRACE`, not a number.

export const TAB = 9;
export const LF = 10;
export const CR = 13;
export const SPACE = 32;
export const QUOTE = 34;
export const HASH = 35;
export const COMMA = 44;
export const MINUS = 45;
export const EQ = 61;
export const BACKSLASH = 92;
export const LBRACE = 123;
export const RBRACE = 125;
