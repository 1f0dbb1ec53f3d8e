import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scalar, str, vector } from './_arbitrary.ts';
import { parse } from './parser.ts';
import { print } from './printer.ts';

describe('print', () => {
  it('round-trips: parse(print(ast)) deep-equals ast', () => {
    fc.assert(
      fc.property(fc.oneof(vector, scalar, str), (ast) => {
        const text = print(ast);
        expect(parse(text)).toEqual(ast);
      }),
      { numRuns: 1500 },
    );
  });
});
