import type { Expr } from './ast.ts';
import { parse } from './parser.ts';

export interface ParseCacheOptions {
  /** maxEntries bounds the number of queries kept; the oldest is dropped first. */
  readonly maxEntries: number;
  /** maxQueryLength: longer query texts are parsed every time, not kept. */
  readonly maxQueryLength: number;
}

/**
 * ParseCache keeps the ASTs of recently parsed query texts, as VictoriaMetrics' query engine
 * does: dashboards and rules send the same texts again and again, and a query that reads
 * a few series spent a measurable share of its time in the lexer and parser, most of all in a
 * process whose parser code is not yet optimised. The AST is shared by every caller that asks
 * for the same text, which is sound because it is immutable (ast.ts: plain readonly objects,
 * never changed after parsing). Only successful parses are kept; a malformed query throws its
 * ParseError each time.
 */
export class ParseCache {
  readonly #opts: ParseCacheOptions;
  readonly #map = new Map<string, Expr>();

  constructor(opts: ParseCacheOptions) {
    this.#opts = opts;
  }

  /** parse returns parse(query), from the cache when the same text was parsed before. */
  parse(query: string): Expr {
    const hit = this.#map.get(query);
    if (hit !== undefined) return hit;
    const expr = parse(query);
    if (query.length <= this.#opts.maxQueryLength && this.#opts.maxEntries > 0) {
      if (this.#map.size >= this.#opts.maxEntries) this.#map.delete(this.#map.keys().next().value!);
      this.#map.set(query, expr);
    }
    return expr;
  }

  get size(): number {
    return this.#map.size;
  }
}
