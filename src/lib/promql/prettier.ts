// Pretty printer: AST → query text over several indented lines, as Prometheus' `format_query`
// (promql/parser/prettier.go) lays it out. A node whose one-line form fits in MAX_LINE characters
// stays on one line; a longer aggregation, call, binary expression or parenthesized expression is
// split, its children one level (two spaces) deeper:
//
//   sum by (job) (                      histogram_quantile(
//     rate(http_requests_total[5m])       0.9,
//   )                                     rate(x_bucket[5m])
//                                       )
//   lhs
//   / on (a) group_left (b)    ← operator line at the node's own indentation
//   rhs
//
// Selectors, literals and matrix selectors are never split. parse(pretty(ast)) deep-equals ast
// (the printer's parentheses are kept; line breaks are only whitespace). One deliberate difference:
// a subquery short enough for one line is indented like any other node (Prometheus writes it at the
// start of its line).

import type { Expr } from './ast.ts';
import {
  aggregateHead, aggregateTail, binaryOperatorText, functionTail, operandNeedsParens, print, subqueryNeedsParens, subquerySuffix, unaryNeedsParens,
} from './printer.ts';

/** MAX_LINE is Prometheus' maxCharactersPerLine: longer nodes are split. */
export const MAX_LINE = 100;
const INDENT = '  ';

/** prettyPrint renders an expression over indented lines (see the file comment); maxLine is for tests. */
export function prettyPrint(e: Expr, maxLine = MAX_LINE): string {
  return pretty(e, 0, false, maxLine);
}

// pretty renders e at indentation level, in parentheses when parens is set.
function pretty(e: Expr, level: number, parens: boolean, max: number): string {
  const ind = INDENT.repeat(level);
  const flat = print(e);
  if (parens) {
    if (flat.length + 2 <= max) return `${ind}(${flat})`;
    return `${ind}(\n${pretty(e, level + 1, false, max)}\n${ind})`;
  }
  if (flat.length <= max) return ind + flat;
  switch (e.type) {
    case 'AggregateExpr': {
      const head = aggregateHead(e);
      const args = e.args.map((a) => pretty(a, level + 1, false, max)).join(',\n');
      return `${ind}${head}${e.grouping === null ? '' : ' '}(\n${args}\n${ind})${aggregateTail(e)}`;
    }
    case 'FunctionCall': {
      if (e.args.length === 0) return ind + flat;
      const args = e.args.map((a) => pretty(a, level + 1, false, max)).join(',\n');
      return `${ind}${e.func}(\n${args}\n${ind})${functionTail(e)}`;
    }
    case 'BinaryExpr':
      return `${pretty(e.lhs, level + 1, operandNeedsParens(e, 'lhs'), max)}\n${ind}${binaryOperatorText(e)}\n${pretty(e.rhs, level + 1, operandNeedsParens(e, 'rhs'), max)}`;
    case 'SubqueryExpr':
      return `${pretty(e.expr, level, subqueryNeedsParens(e), max)}${subquerySuffix(e)}`;
    case 'UnaryExpr':
      // The operator takes the place of the operand's indentation.
      return `${ind}${e.op}${pretty(e.expr, level, unaryNeedsParens(e), max).trimStart()}`;
    default:
      return ind + flat;
  }
}
