import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { over, show } from './_test-fixture.ts';
import { applyOp, compareOp, opCode } from './binary-ops.ts';
import { dropMetricName } from './labels.ts';
import type { Labels } from '../storageapi/index.ts';

// Vector/scalar operators over a range, against the rule applied point by point to the operand's
// own range result: arithmetic (and `bool`) keeps every point and drops the name, a comparison
// keeps the points where it holds with the vector's value.
const ARITH = ['+', '-', '*', '/', '%', '^', 'atan2'] as const;
const CMP = ['==', '!=', '>', '<', '>=', '<='] as const;
const OPERANDS = ['gauge', 'counter', 'stale_gauge', 'lat_bucket'];

function key(name: string, labels: string): Labels {
  return labels.split(',').filter(Boolean).map((kv) => {
    const [n, v] = kv.split('=');
    return { name: n!, value: JSON.parse(v!) as string };
  }).concat(name === '' ? [] : [{ name: '__name__', value: name }]).sort((a, b) => (a.name < b.name ? -1 : 1));
}

function expected(input: Record<string, (number | null)[]>, op: string, k: number, scalarLeft: boolean, bool: boolean): Record<string, (number | null)[]> {
  const code = opCode(op as never);
  const isCmp = (CMP as readonly string[]).includes(op);
  const out: Record<string, (number | null)[]> = {};
  for (const [name, row] of Object.entries(input)) {
    const got = row.map((v) => {
      if (v === null) return null;
      const [a, b] = scalarLeft ? [k, v] : [v, k];
      if (!isCmp) return applyOp(code, a, b);
      const keep = compareOp(code, a, b);
      if (bool) return keep ? 1 : 0;
      return keep ? v : null;
    });
    if (got.every((v) => v === null)) continue;
    const m = /^([^{]*)\{(.*)\}$/.exec(name)!;
    out[!isCmp || bool ? show(dropMetricName(key(m[1]!, m[2]!))) : name] = got;
  }
  return out;
}

describe('vector/scalar operators', () => {
  it('apply the operator at each present point, as the simple rule does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ARITH, ...CMP),
        fc.constantFrom(...OPERANDS),
        fc.constantFrom(-2, 0, 0.5, 3, 10),
        fc.boolean(),
        fc.boolean(),
        async (op, operand, k, scalarLeft, boolArg) => {
          const isCmp = (CMP as readonly string[]).includes(op);
          const bool = isCmp && boolArg;
          const opText = bool ? `${op} bool` : op;
          const query = scalarLeft ? `(${k}) ${opText} ${operand}` : `${operand} ${opText} (${k})`;
          const want = expected(await over(operand), op, k, scalarLeft, bool);
          const got = await over(query);
          expect(Object.keys(got).sort(), query).toEqual(Object.keys(want).sort());
          for (const [name, row] of Object.entries(want)) expect(got[name], `${query} ${name}`).toEqual(row);
        },
      ),
      { numRuns: 300 },
    );
  });
});
