import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.ts';
import { parseLockRequest, parseRestoreRequest } from './request-body.ts';

const fails = (fn: () => unknown, want: RegExp) => {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).status).toBe(400);
  expect((err as Error).message).toMatch(want);
};

describe('parseLockRequest', () => {
  it('accepts a boolean "locked" and rejects the rest', () => {
    const f = (body: string | undefined, want: boolean | RegExp) =>
      typeof want === 'boolean' ? expect(parseLockRequest(body)).toEqual({ locked: want }) : fails(() => parseLockRequest(body), want);
    f('{"locked":true}', true);
    f(' {"locked": false, "extra": 1} ', false);
    f(undefined, /missing request body/);
    f('', /missing request body/);
    f('{', /cannot parse request body as JSON/);
    f('[true]', /must be a JSON object/);
    f('null', /must be a JSON object/);
    f('{"locked":"true"}', /"locked" must be a boolean/);
    f('{}', /"locked" must be a boolean/);
  });
});

describe('parseRestoreRequest', () => {
  it('accepts a non-empty "backup" string and rejects the rest', () => {
    const f = (body: string | undefined, want: string | RegExp) =>
      typeof want === 'string' ? expect(parseRestoreRequest(body)).toEqual({ backup: want }) : fails(() => parseRestoreRequest(body), want);
    f('{"backup":"daily/2024-01-01"}', 'daily/2024-01-01');
    f('{"backup":" s3://b/p/latest "}', 's3://b/p/latest');
    f('{"backup":""}', /non-empty string/);
    f('{"backup":5}', /non-empty string/);
    f('"daily/2024-01-01"', /must be a JSON object/);
    f(undefined, /missing request body/);
  });
});
