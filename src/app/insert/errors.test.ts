import { describe, expect, it } from 'vitest';
import { common } from '../../lib/protoparser/index.ts';
import { LimitExceededError, NodeUnavailableError } from '../../lib/storageapi/index.ts';
import { classifyInsertError } from './errors.ts';

describe('classifyInsertError', () => {
  it('maps failures onto the catalog with a status and a message naming the flag once', () => {
    const f = (err: unknown, wantCode: string, wantStatus: number, wantMessage: string) => {
      const e = classifyInsertError(err);
      expect({ code: e.code, status: e.status, message: e.message }).toEqual({ code: wantCode, status: wantStatus, message: wantMessage });
    };
    // Storage spells the flag with its dash and names it in the message already.
    f(new LimitExceededError('series x has 3 labels, more than -maxLabelsPerTimeseries=2', '-maxLabelsPerTimeseries', 2), 'ERR_INSERT_LIMIT', 400, 'series x has 3 labels, more than -maxLabelsPerTimeseries=2');
    // A flag without its dash, not named in the message, is appended with one dash.
    f(new LimitExceededError('label too long', 'maxLabelValueLen', 10), 'ERR_INSERT_LIMIT', 400, 'label too long (see -maxLabelValueLen)');
    f(new common.BodyTooLargeError('request body', 100), 'ERR_INSERT_TOO_LARGE', 413, `${new common.BodyTooLargeError('request body', 100).message}; see -maxInsertRequestSize`);
    // A storage node that cannot be reached is the cluster's 503, not a server bug.
    f(new NodeUnavailableError('s1:8400', 'cannot reach s1:8400'), 'ERR_INSERT_UNAVAILABLE', 503, 'cannot insert rows: cannot reach s1:8400');
    f(new Error('disk full'), 'ERR_INSERT_INTERNAL', 500, 'cannot insert rows: disk full');
  });
});
