import { describe, expect, it } from 'vitest';
import type { Condition } from '../api/status.ts';
import { conditionsFor } from './status.ts';

const T0 = Date.parse('2024-01-01T00:00:00Z');
const summary = (r: ReturnType<typeof conditionsFor>) => [r.phase, ...r.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`)].join(' ');

describe('conditionsFor', () => {
  it('maps outcomes to conditions and phase', () => {
    const f = (outcome: Parameters<typeof conditionsFor>[1], want: string) => expect(summary(conditionsFor([], outcome, 3, T0, 60_000))).toBe(want);
    f({ paused: false }, 'Ready Ready=True/AllComponentsReady Progressing=False/RolloutComplete Degraded=False/AsExpected');
    f({ paused: false, progressing: { reason: 'RollingUpdate', message: 'm' } }, 'Progressing Ready=False/RollingUpdate Progressing=True/RollingUpdate Degraded=False/AsExpected');
    f({ paused: false, error: { reason: 'ReconcileError', message: 'boom' } }, 'Degraded Ready=False/ReconcileError Progressing=False/RolloutComplete Degraded=True/ReconcileError');
    f({ paused: true }, 'Paused Ready=True/AllComponentsReady Progressing=False/Paused Degraded=False/AsExpected');
    f({ paused: true, progressing: { reason: 'WaitingForReadiness', message: 'm' } }, 'Paused Ready=False/WaitingForReadiness Progressing=False/Paused Degraded=False/AsExpected');
  });

  it('keeps transition times of unchanged conditions and stamps observedGeneration', () => {
    const first = conditionsFor([], { paused: false }, 1, T0, 60_000).conditions;
    const again = conditionsFor(first, { paused: false }, 2, T0 + 5000, 60_000).conditions;
    expect(again.map((c) => c.lastTransitionTime)).toEqual(first.map((c) => c.lastTransitionTime));
    expect(again.every((c) => c.observedGeneration === 2)).toBe(true);
    const changed = conditionsFor(first, { paused: false, progressing: { reason: 'RollingUpdate', message: 'm' } }, 2, T0 + 5000, 60_000).conditions;
    expect(changed.find((c) => c.type === 'Ready')!.lastTransitionTime).toBe('2024-01-01T00:00:05Z');
  });

  it('reports Degraded once a rollout makes no progress for the deadline', () => {
    const progressing = { reason: 'WaitingForReadiness', message: 'pod-0 not ready' };
    const start: Condition[] = conditionsFor([], { paused: false, progressing }, 1, T0, 60_000).conditions;
    const f = (elapsed: number, want: string) => expect(summary(conditionsFor(start, { paused: false, progressing }, 1, T0 + elapsed, 60_000))).toContain(want);
    f(59_000, 'Degraded=False/AsExpected');
    f(61_000, 'Degraded=True/ProgressDeadlineExceeded');
  });
});
