// Evaluator for parsed CEL expressions over JSON values, with CEL's error semantics: a missing
// field is an error, && and || absorb errors when the other side decides the result.
import type { CelExpr } from './parser.ts';

/** CelEvalError reports a runtime error (missing field, type mismatch, unknown function). */
export class CelEvalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CelEvalError';
  }
}

/**
 * InvalidData stands for a field whose value does not have its schema's type (the API server
 * lets a list through a `format`ted string field). Reading it, or testing it with has(), fails
 * the rule with the API server's conversion error.
 */
export class InvalidData {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

const checked = (v: unknown): unknown => {
  if (v instanceof InvalidData) throw new CelEvalError(v.message);
  return v;
};

/** CelType values are what type() returns and what the type identifiers evaluate to. */
export interface CelType {
  readonly celType: 'int' | 'double' | 'string' | 'bool' | 'list' | 'map' | 'null_type' | 'type';
}
const TYPES: Record<string, CelType> = Object.fromEntries(
  (['int', 'double', 'string', 'bool', 'list', 'map', 'null_type', 'type'] as const).map((t) => [t, { celType: t }]),
);

type Env = ReadonlyMap<string, unknown>;
const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !('celType' in v);

function typeOf(v: unknown): CelType {
  if (v === null || v === undefined) return TYPES.null_type!;
  if (typeof v === 'number') return Number.isInteger(v) ? TYPES.int! : TYPES.double!;
  if (typeof v === 'string') return TYPES.string!;
  if (typeof v === 'boolean') return TYPES.bool!;
  if (Array.isArray(v)) return TYPES.list!;
  if (typeof v === 'object' && 'celType' in v) return TYPES.type!;
  return TYPES.map!;
}

function equals(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => equals(x, b[i]));
  if (isMap(a) && isMap(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => k in b && equals(a[k], b[k]));
  }
  return a === b;
}

function asBool(v: unknown, what: string): boolean {
  if (typeof v !== 'boolean') throw new CelEvalError(`${what} must be bool, got ${typeOf(v).celType}`);
  return v;
}

function size(v: unknown): number {
  if (typeof v === 'string') return [...v].length;
  if (Array.isArray(v)) return v.length;
  if (isMap(v)) return Object.keys(v).length;
  throw new CelEvalError(`size() of ${typeOf(v).celType}`);
}

function compare(op: string, a: unknown, b: unknown): boolean {
  const comparable = (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
  if (!comparable) throw new CelEvalError(`no such overload: ${typeOf(a).celType} ${op} ${typeOf(b).celType}`);
  const x = a as number | string;
  const y = b as number | string;
  return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
}

function arithmetic(op: string, a: unknown, b: unknown): unknown {
  if (op === '+' && typeof a === 'string' && typeof b === 'string') return a + b;
  if (op === '+' && Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  if (typeof a !== 'number' || typeof b !== 'number') throw new CelEvalError(`no such overload: ${typeOf(a).celType} ${op} ${typeOf(b).celType}`);
  const ints = Number.isInteger(a) && Number.isInteger(b);
  if ((op === '/' || op === '%') && ints && b === 0) throw new CelEvalError(op === '/' ? 'division by zero' : 'modulus by zero');
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return ints ? Math.trunc(a / b) : a / b;
    default:
      return a % b;
  }
}

function logical(op: '&&' | '||', expr: { left: CelExpr; right: CelExpr }, env: Env): boolean {
  const decisive = op === '||';
  let leftError: unknown;
  try {
    if (asBool(evaluate(expr.left, env), op) === decisive) return decisive;
  } catch (err) {
    leftError = err;
  }
  const right = asBool(evaluate(expr.right, env), op);
  if (right === decisive) return decisive;
  if (leftError !== undefined) throw leftError;
  return !decisive;
}

function binary(expr: Extract<CelExpr, { type: 'binary' }>, env: Env): unknown {
  if (expr.op === '&&' || expr.op === '||') return logical(expr.op, expr, env);
  const a = evaluate(expr.left, env);
  const b = evaluate(expr.right, env);
  switch (expr.op) {
    case '==':
      return equals(a, b);
    case '!=':
      return !equals(a, b);
    case '<':
    case '<=':
    case '>':
    case '>=':
      return compare(expr.op, a, b);
    case 'in':
      if (Array.isArray(b)) return b.some((x) => equals(x, a));
      if (isMap(b) && typeof a === 'string') return Object.hasOwn(b, a);
      throw new CelEvalError(`no such overload: ${typeOf(a).celType} in ${typeOf(b).celType}`);
    default:
      return arithmetic(expr.op, a, b);
  }
}

function select(operand: unknown, field: string): unknown {
  if (!isMap(operand)) throw new CelEvalError(`cannot select "${field}" from ${typeOf(operand).celType}`);
  if (!Object.hasOwn(operand, field)) throw new CelEvalError(`no such key: ${field}`);
  return checked(operand[field]);
}

function index(operand: unknown, key: unknown): unknown {
  if (Array.isArray(operand)) {
    if (typeof key !== 'number' || !Number.isInteger(key)) throw new CelEvalError('list index must be int');
    if (key < 0 || key >= operand.length) throw new CelEvalError(`index ${key} out of range`);
    return checked(operand[key]);
  }
  if (isMap(operand) && typeof key === 'string') return select(operand, key);
  throw new CelEvalError(`cannot index ${typeOf(operand).celType}`);
}

function comprehension(expr: Extract<CelExpr, { type: 'comprehension' }>, env: Env): unknown {
  const range = evaluate(expr.range, env);
  const elems = Array.isArray(range) ? range : isMap(range) ? Object.keys(range) : undefined;
  if (elems === undefined) throw new CelEvalError(`${expr.macro}() over ${typeOf(range).celType}`);
  const run = (v: unknown) => evaluate(expr.body, new Map(env).set(expr.variable, v));
  switch (expr.macro) {
    case 'all':
      return logicalFold(elems, run, false);
    case 'exists':
      return logicalFold(elems, run, true);
    case 'exists_one':
      return elems.filter((v) => asBool(run(v), 'exists_one()')).length === 1;
    case 'map':
      return elems.map(run);
    case 'filter':
      return elems.filter((v) => asBool(run(v), 'filter()'));
  }
}

// all() and exists() absorb errors like chained && and ||.
function logicalFold(elems: readonly unknown[], run: (v: unknown) => unknown, decisive: boolean): boolean {
  let firstError: unknown;
  for (const v of elems) {
    try {
      if (asBool(run(v), decisive ? 'exists()' : 'all()') === decisive) return decisive;
    } catch (err) {
      firstError ??= err;
    }
  }
  if (firstError !== undefined) throw firstError;
  return !decisive;
}

function call(expr: Extract<CelExpr, { type: 'call' }>, env: Env): unknown {
  const args = expr.args.map((a) => evaluate(a, env));
  const target = expr.target === undefined ? undefined : evaluate(expr.target, env);
  const recv = expr.target === undefined ? args.shift() : target;
  const str = (v: unknown): string => {
    if (typeof v !== 'string') throw new CelEvalError(`${expr.fn}() needs a string, got ${typeOf(v).celType}`);
    return v;
  };
  switch (expr.fn) {
    case 'size':
      return size(recv);
    case 'type':
      return typeOf(recv);
    case 'string':
      return typeof recv === 'string' ? recv : String(recv);
    case 'int':
      if (typeof recv === 'number') return Math.trunc(recv);
      if (typeof recv === 'string' && /^-?[0-9]+$/.test(recv)) return Number(recv);
      throw new CelEvalError(`int() of ${JSON.stringify(recv)}`);
    case 'startsWith':
      return str(recv).startsWith(str(args[0]));
    case 'endsWith':
      return str(recv).endsWith(str(args[0]));
    case 'contains':
      return str(recv).includes(str(args[0]));
    case 'lowerAscii':
      return str(recv).toLowerCase();
    case 'upperAscii':
      return str(recv).toUpperCase();
    case 'matches':
      try {
        return new RegExp(str(args[0]), 'u').test(str(recv));
      } catch (err) {
        if (err instanceof CelEvalError) throw err;
        throw new CelEvalError(`invalid regular expression ${JSON.stringify(args[0])}`);
      }
    default:
      throw new CelEvalError(`unknown function ${expr.fn}()`);
  }
}

/** evaluate runs an expression against variables (self, oldSelf, ...); throws CelEvalError. */
export function evaluate(expr: CelExpr, env: Env): unknown {
  switch (expr.type) {
    case 'literal':
      return expr.value;
    case 'ident':
      if (env.has(expr.name)) return env.get(expr.name);
      if (TYPES[expr.name] !== undefined) return TYPES[expr.name];
      throw new CelEvalError(`undeclared reference to "${expr.name}"`);
    case 'select':
      return select(evaluate(expr.operand, env), expr.field);
    case 'index':
      return index(evaluate(expr.operand, env), evaluate(expr.index, env));
    case 'has': {
      const operand = evaluate(expr.operand, env);
      if (!isMap(operand)) throw new CelEvalError(`has() on ${typeOf(operand).celType}`);
      return Object.hasOwn(operand, expr.field) && checked(operand[expr.field]) !== null;
    }
    case 'comprehension':
      return comprehension(expr, env);
    case 'call':
      return call(expr, env);
    case 'list':
      return expr.items.map((i) => evaluate(i, env));
    case 'map':
      return Object.fromEntries(expr.entries.map((e) => [String(evaluate(e.key, env)), evaluate(e.value, env)]));
    case 'unary': {
      const v = evaluate(expr.operand, env);
      if (expr.op === '!') return !asBool(v, '!');
      if (typeof v !== 'number') throw new CelEvalError(`no such overload: -${typeOf(v).celType}`);
      return -v;
    }
    case 'binary':
      return binary(expr, env);
    case 'conditional':
      return asBool(evaluate(expr.test, env), '?:') ? evaluate(expr.then, env) : evaluate(expr.else, env);
  }
}
