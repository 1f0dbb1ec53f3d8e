// Typed errors shared by every wire format. The insert handlers map them to HTTP statuses:
// ParseError and InvalidArgumentError → 400, BodyTooLargeError → 413,
// UnsupportedEncodingError → 415.

/** Where in the input a ParseError happened. Exactly the fields that make sense for the format are set. */
export interface ParseLocation {
  /** 1-based line number, for line-oriented formats (text, JSON lines, CSV). */
  readonly line?: number;
  /** 0-based byte offset, for binary formats (remote write, native). */
  readonly offset?: number;
  /** Path of the offending element in a JSON document, e.g. `series[2].points[0]`. */
  readonly item?: string;
}

/**
 * ParseError reports input that cannot be turned into rows: which place (line, byte offset or JSON
 * item) and why (`reason`). `message` is `<location>: <reason>` so it can be shown to the client as is.
 */
export class ParseError extends Error {
  readonly reason: string;
  readonly line: number | undefined;
  readonly offset: number | undefined;
  readonly item: string | undefined;
  constructor(reason: string, where: ParseLocation = {}, options?: ErrorOptions) {
    super(describeLocation(where) + reason, options);
    this.name = 'ParseError';
    this.reason = reason;
    this.line = where.line;
    this.offset = where.offset;
    this.item = where.item;
  }
}

function describeLocation(where: ParseLocation): string {
  if (where.line !== undefined) return `line ${where.line}: `;
  if (where.offset !== undefined) return `at byte ${where.offset}: `;
  if (where.item !== undefined) return `${where.item}: `;
  return '';
}

/**
 * BodyTooLargeError reports that a request body (compressed or decompressed, see `what`) exceeded
 * `limit` bytes. Reading stopped at the limit; nothing past it was buffered.
 */
export class BodyTooLargeError extends Error {
  readonly limit: number;
  readonly what: string;
  constructor(what: string, limit: number) {
    super(`${what} exceeds the limit of ${limit} bytes`);
    this.name = 'BodyTooLargeError';
    this.limit = limit;
    this.what = what;
  }
}

/** UnsupportedEncodingError reports a Content-Encoding this endpoint cannot decode. */
export class UnsupportedEncodingError extends Error {
  readonly encoding: string;
  constructor(encoding: string, supported: readonly string[]) {
    super(`unsupported Content-Encoding "${encoding}"; supported: ${supported.join(', ')}`);
    this.name = 'UnsupportedEncodingError';
    this.encoding = encoding;
  }
}

/** InvalidArgumentError reports a bad request argument (a query arg such as `format` or `precision`). */
export class InvalidArgumentError extends Error {
  readonly arg: string;
  constructor(arg: string, reason: string, options?: ErrorOptions) {
    super(`invalid "${arg}" argument: ${reason}`, options);
    this.name = 'InvalidArgumentError';
    this.arg = arg;
  }
}

/**
 * ErrorSummary collects the errors of one request while parsing continues past bad input: how many
 * units (lines, series, items) were rejected and the first error in input order. Only the first
 * error is materialised, so a body full of garbage costs a counter increment per bad line.
 */
export class ErrorSummary {
  count = 0;
  first: ParseError | undefined = undefined;

  /** add records one rejected unit. */
  add(reason: string, where: ParseLocation): void {
    if (this.count === 0) this.first = new ParseError(reason, where);
    this.count++;
  }

  /** addError records an already built ParseError. */
  addError(err: ParseError): void {
    if (this.count === 0) this.first = err;
    this.count++;
  }

  /** merge adds the errors of a later part of the same input. */
  merge(other: ErrorSummary): void {
    if (other.count === 0) return;
    if (this.count === 0) this.first = other.first;
    this.count += other.count;
  }

  /** describe returns a client-facing sentence, or "" when there were no errors. */
  describe(unit = 'line'): string {
    if (this.count === 0 || this.first === undefined) return '';
    const units = this.count === 1 ? unit : `${unit}s`;
    return `${this.count} ${units} could not be parsed; first: ${this.first.message}`;
  }
}
