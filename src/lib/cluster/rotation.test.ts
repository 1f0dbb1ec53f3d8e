import { describe, expect, it } from 'vitest';
import { type Timers } from './call.ts';
import { NodeRotation } from './rotation.ts';

// manualTimers runs timers only when the test says so.
function manualTimers() {
  const due: (() => void)[] = [];
  const timers: Timers = { setTimeout: (fn) => (due.push(fn), due.length), clearTimeout: () => {} };
  return { timers, runAll: () => due.splice(0).forEach((f) => f()) };
}

describe('NodeRotation', () => {
  it('takes a failed node out, re-checks it after its back-off and brings it back', async () => {
    let now = 0;
    const { timers, runAll } = manualTimers();
    const events: string[] = [];
    let healthy = false;
    const checked: number[] = [];
    const r = new NodeRotation({
      names: ['a', 'b'], now: () => now, timers, health: { minBackoffMs: 100, maxBackoffMs: 1000 },
      check: async (k) => {
        checked.push(k);
        if (!healthy) throw new Error('still down');
      },
      observer: { nodeUp: (n) => events.push(`up ${n}`), nodeDown: (n) => events.push(`down ${n}`) },
    });
    expect(r.nodeStates()).toEqual([{ name: 'a', up: true }, { name: 'b', up: true }]);
    r.failed(1, new Error('refused'));
    r.failed(1, new Error('refused again'));
    expect(r.isUp(1)).toBe(false);
    expect(r.isUp(0)).toBe(true);
    expect(events).toEqual(['down b']); // transitions only
    now = 100;
    runAll();
    await r.idle();
    expect(checked).toEqual([1]);
    expect(r.isUp(1)).toBe(false);
    healthy = true;
    now = 10_000;
    runAll();
    await r.idle();
    expect(checked).toEqual([1, 1]);
    expect(r.nodeStates()).toEqual([{ name: 'a', up: true }, { name: 'b', up: true }]);
    expect(events).toEqual(['down b', 'up b']);
    r.succeeded(1);
    expect(events).toEqual(['down b', 'up b']);
    r.close();
  });

  it('brings a node back when a call succeeds before the re-check', () => {
    const { timers } = manualTimers();
    const events: string[] = [];
    const r = new NodeRotation({ names: ['a'], now: () => 0, timers, check: async () => {}, observer: { nodeUp: (n) => events.push(`up ${n}`) } });
    r.failed(0, new Error('timeout'));
    r.succeeded(0);
    expect(r.isUp(0)).toBe(true);
    expect(events).toEqual(['up a']);
    r.close();
  });
});
