// Line parsers reject one line by throwing a LineFailure and catching it in their line loop, which
// records it in the ErrorSummary and goes on with the next line. LineFailure is deliberately not an
// Error: throwing it captures no stack trace, so a body full of bad lines stays cheap. Loops catch
// only LineFailure, so a real bug (a TypeError) still escapes and fails the fuzz tests.

/** LineFailure carries the reason one unit of input (a line, a series) was rejected. */
export class LineFailure {
  readonly reason: string;
  constructor(reason: string) {
    this.reason = reason;
  }
}

/** fail rejects the current unit of input. */
export function fail(reason: string): never {
  throw new LineFailure(reason);
}

/** isLineFailure reports whether a caught value is a LineFailure (anything else must be re-thrown). */
export function isLineFailure(e: unknown): e is LineFailure {
  return e instanceof LineFailure;
}

/** quote renders a piece of input for an error message, cut to a readable length. */
export function quote(s: string, max = 100): string {
  return JSON.stringify(s.length > max ? `${s.slice(0, max)}…` : s);
}
