import { CodedError, defineErrors } from '../errors/index.ts';

/** CODES is the query engine's part of the error catalog (docs/ERRORS.md), one code per kind. */
const CODES = defineErrors({
  ERR_QUERY_BAD_DATA: {},
  ERR_QUERY_EXECUTION: {},
});

/**
 * QueryError reports a query that parsed but cannot be evaluated. `kind` tells the HTTP layer
 * how to answer: 'bad_data' (400: e.g. a range query over a range-vector expression) or
 * 'execution' (422: e.g. duplicate series in a result, many-to-many matching).
 */
export class QueryError extends CodedError {
  readonly kind: 'bad_data' | 'execution';

  constructor(message: string, kind: 'bad_data' | 'execution' = 'execution', options?: ErrorOptions) {
    super(kind === 'bad_data' ? CODES.ERR_QUERY_BAD_DATA : CODES.ERR_QUERY_EXECUTION, message, options);
    this.kind = kind;
  }
}
