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

// Operators as small integers: the hot loops switch on a number, not on the operator string.
const CODES: Readonly<Record<string, number>> = {
  '+': 1, '-': 2, '*': 3, '/': 4, '%': 5, '^': 6, atan2: 7,
  '==': 11, '!=': 12, '>': 13, '<': 14, '>=': 15, '<=': 16,
};

/** opCode maps an arithmetic or comparison operator to the code applyOp/compareOp take. */
export function opCode(op: BinaryOp): number {
  const c = CODES[op];
  if (c === undefined) throw new Error(`operator "${op}" is not arithmetic or a comparison`);
  return c;
}

/** applyOp applies an arithmetic operator given by its code. */
export function applyOp(code: number, a: number, b: number): number {
  switch (code) {
    case 1: return a + b;
    case 2: return a - b;
    case 3: return a * b;
    case 4: return a / b;
    case 5: return a % b;
    case 6: return goPow(a, b);
    default: return Math.atan2(a, b);
  }
}

/** compareOp applies a comparison given by its code (NaN compares false, except !=). */
export function compareOp(code: number, a: number, b: number): boolean {
  switch (code) {
    case 11: return a === b;
    case 12: return a !== b;
    case 13: return a > b;
    case 14: return a < b;
    case 15: return a >= b;
    default: return a <= b;
  }
}

/** changesMetricSchema: arithmetic results are no longer the named metric, so they lose the name. */
export const changesMetricSchema = (op: BinaryOp): boolean => !COMPARISON_OPS.has(op) && !SET_OPS.has(op) && !METRICSQL_OPS.has(op);
