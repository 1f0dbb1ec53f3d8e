import fc from 'fast-check';
import { describe, it } from 'vitest';
import { scalar, vector } from '../promql/_arbitrary.ts';
import type { Expr } from '../promql/index.ts';
import { LimitExceededError } from '../storageapi/index.ts';
import { fixture } from './_test-fixture.ts';
import { instant, range } from './engine.ts';
import { QueryError } from './errors.ts';

const db = fixture();
const MIN = 60_000;

// Any well-typed query either evaluates or fails with a typed, client-facing error (never a
// TypeError or RangeError from inside the engine), within a time bound.
async function evaluatesOrFailsCleanly(e: Expr): Promise<void> {
  const opts = { now: () => 0, maxPointsPerTimeseries: 2000, maxSamples: 100_000, signal: AbortSignal.timeout(5000) };
  for (const run of [() => instant(db, e, 10 * MIN, opts), () => range(db, e, 0, 10 * MIN, MIN, opts)]) {
    try {
      await run();
    } catch (err) {
      if (!(err instanceof QueryError || err instanceof LimitExceededError)) throw err;
    }
  }
}

describe('evaluate (fuzz)', () => {
  it('evaluates generated queries or fails with QueryError/LimitExceededError', async () => {
    await fc.assert(fc.asyncProperty(fc.oneof(vector, scalar), evaluatesOrFailsCleanly), { numRuns: 1000 });
  });
});
