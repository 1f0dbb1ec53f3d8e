import { describe, expect, it } from 'vitest';
import { REAL_TIMERS } from './call.ts';
import { NodeHealth } from './health.ts';
import { Rechecker } from './recheck.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Rechecker', () => {
  it('re-checks a node out of rotation on a timer, backing off while the check fails, until it is back', async () => {
    const health = new NodeHealth({ minBackoffMs: 40, maxBackoffMs: 1000 });
    let healthy = false;
    const checks: number[] = [];
    const started = Date.now();
    let ups = 0;
    const r = new Rechecker({
      health, now: Date.now, timers: REAL_TIMERS,
      check: async () => {
        checks.push(Date.now() - started);
        if (!healthy) throw new Error('still down');
      },
      onUp: () => ups++,
    });
    r.schedule(); // up: nothing to do
    await sleep(60);
    expect(checks).toEqual([]);
    health.failed(Date.now());
    r.schedule();
    r.schedule(); // one timer at a time
    await sleep(90); // first check at ~40 ms fails; the next waits 80 ms
    expect(checks).toHaveLength(1);
    healthy = true;
    await sleep(150);
    await r.idle();
    expect(checks).toHaveLength(2);
    expect(checks[1]! - checks[0]!).toBeGreaterThanOrEqual(75);
    expect(health.isUp).toBe(true);
    expect(ups).toBe(1);
    r.close();
  });

  it('stops at close', async () => {
    const health = new NodeHealth({ minBackoffMs: 20, maxBackoffMs: 20 });
    let checks = 0;
    const r = new Rechecker({ health, now: Date.now, timers: REAL_TIMERS, check: async () => void checks++, onUp: () => {} });
    health.failed(Date.now());
    r.schedule();
    r.close();
    await sleep(60);
    expect(checks).toBe(0);
    expect(health.isUp).toBe(false);
  });
});
