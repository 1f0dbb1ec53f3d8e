import { describe, expect, it } from 'vitest';
import { NodeHealth } from './health.ts';

describe('NodeHealth', () => {
  it('stays up until a failure, then offers one re-check per back-off that doubles up to the cap', () => {
    const h = new NodeHealth({ minBackoffMs: 100, maxBackoffMs: 350 });
    expect(h.isUp).toBe(true);
    expect(h.claimProbe(0)).toBe(false); // an up node needs no re-check
    expect(h.failed(1000)).toBe(true);
    expect(h.isUp).toBe(false);
    expect(h.failed(1000)).toBe(false); // already down: no second transition
    // back-off 100 ms from the last failure
    expect(h.claimProbe(1099)).toBe(false);
    expect(h.claimProbe(1100)).toBe(true);
    expect(h.claimProbe(1100)).toBe(false); // one re-check at a time
    h.failed(1100); // failed re-check: 200 ms
    expect(h.claimProbe(1299)).toBe(false);
    expect(h.claimProbe(1300)).toBe(true);
    h.failed(1300); // 350 (capped, not 400)
    expect(h.claimProbe(1649)).toBe(false);
    expect(h.claimProbe(1650)).toBe(true);
    h.failed(1650); // stays at the cap
    expect(h.claimProbe(2000)).toBe(true);
    expect(h.succeeded()).toBe(true);
    expect(h.isUp).toBe(true);
    expect(h.succeeded()).toBe(false);
  });

  it('starts again from the shortest back-off after coming back', () => {
    const h = new NodeHealth({ minBackoffMs: 100, maxBackoffMs: 1000 });
    h.failed(0);
    expect(h.claimProbe(100)).toBe(true);
    h.failed(100);
    expect(h.claimProbe(300)).toBe(true);
    h.succeeded();
    h.failed(1000);
    expect(h.claimProbe(1100)).toBe(true);
  });

  it('lets plain traffic failures while down push the re-check back without growing the back-off', () => {
    const h = new NodeHealth({ minBackoffMs: 100, maxBackoffMs: 1000 });
    h.failed(0);
    h.failed(50); // a call that was already in flight failed later
    expect(h.claimProbe(100)).toBe(false);
    expect(h.claimProbe(150)).toBe(true);
  });
});
