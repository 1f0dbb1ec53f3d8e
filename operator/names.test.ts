import { describe, expect, it } from 'vitest';
import { dnsName, MAX_STATEFULSET_NAME, workloadName } from './names.ts';

describe('dnsName', () => {
  it('joins short names and shortens long ones with a hash', () => {
    const f = (parts: string[], max: number | undefined, want: string | RegExp) => {
      const got = dnsName(parts, max);
      if (typeof want === 'string') expect(got).toBe(want);
      else expect(got).toMatch(want);
      expect(got.length).toBeLessThanOrEqual(max ?? 63);
    };
    f(['tsdb-single', 'main'], undefined, 'tsdb-single-main');
    f(['a', '', 'B'], undefined, 'a-b');
    f(['x', 'y'.repeat(80)], undefined, /^x-y+-[0-9a-f]{8}$/);
    f(['x', 'y'.repeat(80)], 20, /^x-y{9}-[0-9a-f]{8}$/);
  });

  it('keeps long names distinct and StatefulSet names within their limit', () => {
    expect(dnsName(['a'.repeat(70), '1'])).not.toBe(dnsName(['a'.repeat(70), '2']));
    expect(workloadName('tsdb-storage', 'n'.repeat(63)).length).toBeLessThanOrEqual(MAX_STATEFULSET_NAME);
  });
});
