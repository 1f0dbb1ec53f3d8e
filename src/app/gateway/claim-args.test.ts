import { describe, expect, it } from 'vitest';
import { mergeQueryArgs } from '../../lib/httpproxy/index.ts';
import { claimArgs } from './claim-args.ts';
import { type Claims } from './claims.ts';

const base: Claims = { exp: 1, tenant: { accountID: 0, projectID: 0 }, extraLabels: undefined, extraFilters: undefined, mode: 'full' };

describe('claimArgs', () => {
  it('forces extra_label on reads and writes and extra_filters[] on reads, replacing the client\'s', () => {
    const f = (c: Partial<Claims>, kind: 'read' | 'write', client: string, want: string) => expect(mergeQueryArgs(client, claimArgs({ ...base, ...c }, kind))).toBe(want);
    // no claims: the client's args go through untouched
    f({}, 'read', 'query=up&extra_label=a=b', 'query=up&extra_label=a=b');
    f({ extraLabels: [{ name: 'team', value: 'x y' }] }, 'read', 'query=up&extra_label=team=other&extra%5Flabel=a=b', 'query=up&extra_label=team%3Dx+y');
    f({ extraLabels: [{ name: 'team', value: 'x' }] }, 'write', 'extra_label=team=y', 'extra_label=team%3Dx');
    f({ extraFilters: ['{env="prod"}'] }, 'read', 'match[]=up&extra_filters[]={a="b"}&extra_filters={c="d"}&extra_filters%5B%5D=z',
      'match[]=up&extra_filters%5B%5D=%7Benv%3D%22prod%22%7D');
    // filters select series: writes get none, and keep whatever the client sent
    f({ extraFilters: ['{env="prod"}'] }, 'write', 'extra_filters[]=x', 'extra_filters[]=x');
    // an empty claim removes the client's args and adds none
    f({ extraLabels: [], extraFilters: [] }, 'read', 'query=up&extra_label=a=b&extra_filters[]=x', 'query=up');
    f({ extraLabels: [{ name: 'a', value: '1' }, { name: 'b', value: '2' }] }, 'read', '', 'extra_label=a%3D1&extra_label=b%3D2');
  });
});
