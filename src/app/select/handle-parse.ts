import { astToJson } from '../../lib/promql/ast-json.ts';
import { prettyPrint } from '../../lib/promql/prettier.ts';
import { requireQuery } from './handle-query.ts';
import type { ReadContext } from './request-context.ts';

// /api/v1/format_query and /api/v1/parse_query (Prometheus 2.38+): the query pretty-printed, or its
// syntax tree. A query that does not parse is 400 bad_data naming where, as for /api/v1/query.
// WITH templates (MetricsQL) are expanded: both show the query as it is evaluated.

/** handleFormatQuery serves /api/v1/format_query: `{"status":"success","data":"<formatted query>"}`. */
export async function handleFormatQuery(c: ReadContext): Promise<object> {
  return { status: 'success', data: prettyPrint(requireQuery(c)) };
}

/** handleParseQuery serves /api/v1/parse_query: `{"status":"success","data":<AST as JSON>}`. */
export async function handleParseQuery(c: ReadContext): Promise<object> {
  return { status: 'success', data: astToJson(requireQuery(c)) };
}
