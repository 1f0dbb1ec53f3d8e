// One shape for every error a component answers or a library throws on purpose (ARCHITECTURE
// src/lib/errors): a stable code, the HTTP status a server answers it with, a message template,
// and the cause kept. Every code is listed in docs/ERRORS.md; test/arch/error-codes.test.ts holds
// the two to each other and checks that no code is defined twice.

/** ErrorDef is one catalog entry; a catalog may add fields of its own (a metric reason, headers). */
export interface ErrorDef {
  /**
   * status is the HTTP status a server answers the error with. Library errors leave it out: the
   * app's catalog maps them (one library error may be a 400 on writes and a 422 on reads), and
   * one that reaches a client unmapped is an internal error (500).
   */
  readonly status?: number;
  /** message builds the message (for an answer: its plain-text body) from a detail. */
  readonly message?: (detail: string) => string;
}

/** Coded is a catalog entry with its code. */
export type Coded<D extends ErrorDef = ErrorDef, C extends string = string> = D & { readonly code: C };

/** Catalog is what defineErrors returns: each entry with its code, keyed by code. */
export type Catalog<T extends Record<string, ErrorDef>> = { readonly [K in keyof T & string]: Coded<T[K], K> };

const CODE_RE = /^ERR_[A-Z0-9]+(?:_[A-Z0-9]+)*$/;
const defined = new Set<string>();

/**
 * defineErrors declares a module's error codes (ERR_<MODULE>_<WHAT>) and returns the frozen
 * catalog. A code defined twice, by any module of the process, throws at load time.
 */
export function defineErrors<const T extends Record<string, ErrorDef>>(defs: T): Catalog<T> {
  const out: Record<string, Coded> = {};
  for (const [code, def] of Object.entries(defs)) {
    if (!CODE_RE.test(code)) throw new Error(`cannot define error code "${code}": codes look like ERR_<MODULE>_<WHAT>`);
    if (defined.has(code)) throw new Error(`cannot define error code "${code}": it is already defined`);
    defined.add(code);
    out[code] = Object.freeze({ ...def, code });
  }
  return Object.freeze(out) as Catalog<T>;
}

/** definedCodes lists every code defined in this process so far (for the catalog test). */
export function definedCodes(): readonly string[] {
  return [...defined];
}

/**
 * CodedError is an error with a catalog code and the status a server answers it with (500 when its
 * entry names none). Its name is its class's name; the cause is kept.
 */
export class CodedError<C extends string = string> extends Error {
  readonly code: C;
  readonly status: number;
  constructor(def: Coded<ErrorDef, C>, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = def.code;
    this.status = def.status ?? 500;
  }
}

/** codedError makes a CodedError whose message is the entry's template applied to detail. */
export function codedError<C extends string>(def: Coded<ErrorDef, C>, detail: string, options?: ErrorOptions): CodedError<C> {
  return new CodedError(def, def.message === undefined ? detail : def.message(detail), options);
}

/** errorMessage returns the message of any thrown value. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
