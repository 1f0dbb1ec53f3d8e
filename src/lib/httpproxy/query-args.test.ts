import { describe, expect, it } from 'vitest';
import { forcedArgsFromSearch, mergeQueryArgs, NO_FORCED_ARGS, QueryError } from './query-args.ts';

const forced = (q: string) => forcedArgsFromSearch(new URLSearchParams(q));

describe('mergeQueryArgs', () => {
  it('keeps client args, drops those the prefix forces (however spelled) and appends the forced ones', () => {
    const f = (client: string, prefix: string, want: string) => expect(mergeQueryArgs(client, forced(prefix))).toBe(want);
    f('query=up&step=1', '', 'query=up&step=1');
    f('', 'extra_label=tenant%3Da', 'extra_label=tenant%3Da');
    f('query=up', 'extra_label=tenant%3Da', 'query=up&extra_label=tenant%3Da');
    // overrides of forced args are dropped, in any encoding of the name
    f('extra_label=tenant%3Db&query=up', 'extra_label=tenant%3Da', 'query=up&extra_label=tenant%3Da');
    f('extra%5Flabel=tenant%3Db', 'extra_label=tenant%3Da', 'extra_label=tenant%3Da');
    f('extra%5flabel=x&extra_label=y&extra_label', 'extra_label=tenant%3Da', 'extra_label=tenant%3Da');
    f('a+b=1', 'a%20b=2', 'a%20b=2'.replace('%20', '+'));
    // empty pieces disappear, other names (case differs) stay
    f('&&Extra_Label=x&', 'extra_label=a', 'Extra_Label=x&extra_label=a');
    expect(mergeQueryArgs('a=1&&b', NO_FORCED_ARGS)).toBe('a=1&&b');
  });

  it('rejects an undecodable arg name when args are forced', () => {
    expect(() => mergeQueryArgs('extra%ZZlabel=1', forced('extra_label=a'))).toThrow(QueryError);
  });
});
