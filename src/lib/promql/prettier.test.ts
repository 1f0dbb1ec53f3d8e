import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scalar, str, vector } from './_arbitrary.ts';
import { parse } from './parser.ts';
import { MAX_LINE, prettyPrint } from './prettier.ts';

const long = (n: number) => `metric_with_a_rather_long_name_${'x'.repeat(n)}`;

describe('prettyPrint', () => {
  it('lays out long queries as Prometheus format_query does', () => {
    const f = (query: string, want: string) => expect(prettyPrint(parse(query))).toBe(want);
    // Short queries stay on one line, in canonical spelling.
    f('sum(rate(foo[5m])) by (job)', 'sum by (job)(rate(foo[5m]))');
    f('  up   ==  1 ', 'up == 1');
    // A long aggregation puts its argument on its own line.
    const a = long(40);
    f(`sum by (job, instance) (rate(${a}{code="500"}[5m]))`, `sum by (job, instance) (\n  rate(${a}{code="500"}[5m])\n)`);
    // A long binary expression: operands one level deeper, operator (with modifiers) between them.
    f(`rate(${a}[5m]) / on(job) group_left(team) rate(${a}[1h])`, `  rate(${a}[5m])\n/ on(job) group_left(team)\n  rate(${a}[1h])`);
    // Calls split their arguments one per line; nested splits indent further.
    f(`histogram_quantile(0.9, sum by (le) (rate(${a}_bucket{job="api"}[5m])))`,
      `histogram_quantile(\n  0.9,\n  sum by (le) (\n    rate(${a}_bucket{job="api"}[5m])\n  )\n)`);
    // Parentheses the precedence needs are kept, split like Prometheus' ParenExpr (whose content
    // sits one level deeper, so a binary expression inside has its operator two levels in).
    f(`(${a} + ${a}) * 2`, `  (\n      ${a}\n    +\n      ${a}\n  )\n*\n  2`);
    // A unary minus stays in front of its operand.
    f(`-sum(rate(${a}[5m]) * 1000000000000)`, `-sum(\n  rate(${a}[5m]) * 1000000000000\n)`);
    // Subqueries keep their range after the expression, split when the expression alone is too long
    // (one that fits is indented, where Prometheus leaves it at the start of the line).
    f(`max_over_time(sum(rate(${a}{code="500"}[5m]))[1h:1m])`, `max_over_time(\n  sum(rate(${a}{code="500"}[5m]))[1h:1m]\n)`);
    f(`max_over_time(sum(rate(${a}{code="500",x="y"}[5m]))[1h:1m])`, `max_over_time(\n  sum(\n    rate(${a}{code="500", x="y"}[5m])\n  )[1h:1m]\n)`);
  });

  it('round-trips: parse(prettyPrint(ast)) deep-equals ast', () => {
    // A short line limit splits nearly every node, so every layout rule is exercised.
    fc.assert(fc.property(fc.oneof(vector, scalar, str), fc.constantFrom(0, 8, 30, MAX_LINE), (ast, max) => {
      expect(parse(prettyPrint(ast, max))).toEqual(ast);
    }), { numRuns: 2000 });
  });

  it('splits every line it can into at most MAX_LINE characters plus indentation', () => {
    const q = Array.from({ length: 6 }, (_, i) => `sum by (job) (rate(${long(i * 3)}[5m]))`).join(' + ');
    const lines = prettyPrint(parse(q)).split('\n');
    expect(lines.length).toBeGreaterThan(6);
    for (const l of lines) expect(l.trimStart().length).toBeLessThanOrEqual(MAX_LINE);
  });
});
