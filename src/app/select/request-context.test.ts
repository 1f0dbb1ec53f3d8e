import { describe, expect, it } from 'vitest';
import { LimitExceededError } from '../../lib/storageapi/index.ts';
import { ApiError } from './errors.ts';
import { toApiError } from './request-context.ts';

describe('toApiError', () => {
  it('names the flag of a limit once, with one dash, whichever way the engine spelled it', () => {
    const f = (err: unknown, want: { kind: string; status: number; message: string }) => {
      const e = toApiError(err);
      expect({ kind: e.kind, status: e.status, message: e.message }).toEqual(want);
    };
    f(new LimitExceededError('needs 100 points, raise -search.maxPointsPerTimeseries', '-search.maxPointsPerTimeseries', 50),
      { kind: 'limit', status: 422, message: 'needs 100 points, raise -search.maxPointsPerTimeseries' });
    f(new LimitExceededError('too many series', '-search.maxUniqueTimeseries', 5), { kind: 'limit', status: 422, message: 'too many series; see -search.maxUniqueTimeseries' });
    f(new LimitExceededError('too many series', 'search.maxSeries', 5), { kind: 'limit', status: 422, message: 'too many series; see -search.maxSeries' });
    f(new ApiError('bad_data', 'x'), { kind: 'bad_data', status: 400, message: 'x' });
    f(new Error('boom'), { kind: 'internal', status: 500, message: 'boom' });
  });
});
