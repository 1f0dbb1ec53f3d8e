
/**
 * RequestParams reads read-API arguments from the URL query and a form-encoded body (GET and
 * POST are both accepted). A name present in the URL wins over the same name in the body
 * (DECISIONS.md: "URL args win over the same names in a form body").
 */
export class RequestParams {
  readonly #query: Readonly<Record<string, unknown>>;
  readonly #body: Readonly<Record<string, unknown>>;

  constructor(query: unknown, body: unknown) {
    this.#query = isRecord(query) ? query : {};
    this.#body = isRecord(body) ? body : {};
  }

  /** getAll returns every value of the first of `names` present (URL first, then body). */
  getAll(...names: string[]): string[] {
    for (const source of [this.#query, this.#body]) {
      for (const name of names) {
        const v = source[name];
        if (v === undefined) continue;
        return (Array.isArray(v) ? v : [v]).map(String);
      }
    }
    return [];
  }

  /** get returns the last value of name (repeated scalar args: the last one counts), or undefined. */
  get(name: string): string | undefined {
    const all = this.getAll(name);
    return all.length === 0 ? undefined : all[all.length - 1];
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Buffer.isBuffer(v);
}
