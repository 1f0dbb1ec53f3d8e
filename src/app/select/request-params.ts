
/**
 * RequestParams reads read-API arguments from the URL query and a form-encoded body (GET and
 * POST are both accepted). A name present in the URL wins over the same name in the body
 * (DECISIONS.md: "URL args win over the same names in a form body").
 *
 * Lookups build no arrays of their own (no rest args, no list of sources): a query request reads
 * a dozen names, and those arrays were 3.7 of the ~48 KB one small query allocated.
 */
export class RequestParams {
  readonly #query: Readonly<Record<string, unknown>>;
  readonly #body: Readonly<Record<string, unknown>>;

  constructor(query: unknown, body: unknown) {
    this.#query = isRecord(query) ? query : EMPTY;
    this.#body = isRecord(body) ? body : EMPTY;
  }

  /** getAll returns every value of the first of name, alias present (URL first, then body). */
  getAll(name: string, alias?: string): string[] {
    const v = this.#raw(name, alias);
    if (v === undefined) return [];
    return Array.isArray(v) ? v.map(String) : [String(v)];
  }

  /** get returns the last value of name (repeated scalar args: the last one counts), or undefined. */
  get(name: string): string | undefined {
    const v = this.#raw(name, undefined);
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) return String(v);
    return v.length === 0 ? undefined : String(v[v.length - 1]);
  }

  #raw(name: string, alias: string | undefined): unknown {
    const q = this.#query;
    let v = q[name];
    if (v !== undefined) return v;
    if (alias !== undefined && (v = q[alias]) !== undefined) return v;
    const b = this.#body;
    if ((v = b[name]) !== undefined) return v;
    return alias === undefined ? undefined : b[alias];
  }
}

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Buffer.isBuffer(v);
}
