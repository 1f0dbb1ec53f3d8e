// AST traversal helpers.

import type { Expr, VectorSelector } from './ast.ts';

/** children returns the direct sub-expressions of e, in source order. */
export function children(e: Expr): readonly Expr[] {
  switch (e.type) {
    case 'NumberLiteral':
    case 'StringLiteral':
    case 'VectorSelector': return [];
    case 'MatrixSelector': return [e.selector];
    case 'SubqueryExpr':
    case 'UnaryExpr': return [e.expr];
    case 'BinaryExpr': return [e.lhs, e.rhs];
    case 'AggregateExpr':
    case 'FunctionCall': return e.args;
  }
}

/** inspect calls fn for e and every node below it (pre-order). */
export function inspect(e: Expr, fn: (node: Expr) => void): void {
  fn(e);
  for (const c of children(e)) inspect(c, fn);
}

/** selectorsOf lists every vector selector in e (those inside range selectors included). */
export function selectorsOf(e: Expr): VectorSelector[] {
  const out: VectorSelector[] = [];
  inspect(e, (n) => {
    if (n.type === 'VectorSelector') out.push(n);
  });
  return out;
}
