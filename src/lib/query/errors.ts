/**
 * QueryError reports a query that parsed but cannot be evaluated. `kind` tells the HTTP layer
 * how to answer: 'bad_data' (400: e.g. a range query over a range-vector expression) or
 * 'execution' (422: e.g. duplicate series in a result, many-to-many matching).
 */
export class QueryError extends Error {
  readonly kind: 'bad_data' | 'execution';

  constructor(message: string, kind: 'bad_data' | 'execution' = 'execution', options?: ErrorOptions) {
    super(message, options);
    this.name = 'QueryError';
    this.kind = kind;
  }
}
