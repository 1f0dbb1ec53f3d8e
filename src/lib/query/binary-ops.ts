// Element-wise operator semantics shared by every operand combination (Go math semantics).

import type { BinaryOp } from '../promql/index.ts';

export const COMPARISON_OPS: ReadonlySet<BinaryOp> = new Set(['==', '!=', '>', '<', '>=', '<=']);
export const SET_OPS: ReadonlySet<BinaryOp> = new Set(['and', 'or', 'unless']);
export const METRICSQL_OPS: ReadonlySet<BinaryOp> = new Set(['default', 'if', 'ifnot']);

/** goPow is Go's math.Pow: unlike `**`, Pow(1, y) = 1 and Pow(-1, ±Inf) = 1 for every y. */
export function goPow(x: number, y: number): number {
  if (x === 1) return 1;
  if (x === -1 && (y === Infinity || y === -Infinity)) return 1;
  return x ** y;
}

/** arithmetic applies +, -, *, /, %, ^ or atan2. */
export function arithmetic(op: BinaryOp, a: number, b: number): number {
  switch (op) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    case '/': return a / b;
    case '%': return a % b;
    case '^': return goPow(a, b);
    case 'atan2': return Math.atan2(a, b);
    default: throw new Error(`operator "${op}" is not arithmetic`);
  }
}

/** compare applies a comparison operator (NaN compares false, except != which is true). */
export function compare(op: BinaryOp, a: number, b: number): boolean {
  switch (op) {
    case '==': return a === b;
    case '!=': return a !== b;
    case '>': return a > b;
    case '<': return a < b;
    case '>=': return a >= b;
    case '<=': return a <= b;
    default: throw new Error(`operator "${op}" is not a comparison`);
  }
}

/** changesMetricSchema: arithmetic results are no longer the named metric, so they lose the name. */
export const changesMetricSchema = (op: BinaryOp): boolean => !COMPARISON_OPS.has(op) && !SET_OPS.has(op) && !METRICSQL_OPS.has(op);
