import { describe, expect, it } from 'vitest';
import type { ReconcileContext } from './context.ts';
import type { KubeObject } from '../k8s/types.ts';
import { componentStatus, deploymentState, observedState, rollStatefulSet } from './rollout.ts';

const dep = (generation: number, replicas: number, status: Record<string, number>): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', generation },
  spec: { replicas },
  status,
});

describe('deploymentState', () => {
  it('is done only when the current template runs on all ready Pods and old Pods are gone', () => {
    const f = (d: KubeObject, want: string) => expect(deploymentState(d).reason).toBe(want);
    f(dep(2, 2, { observedGeneration: 1, updatedReplicas: 2, readyReplicas: 2, replicas: 2 }), 'WaitingForController');
    f(dep(2, 2, { observedGeneration: 2, updatedReplicas: 1, readyReplicas: 2, replicas: 3 }), 'RollingUpdate');
    f(dep(2, 2, { observedGeneration: 2, updatedReplicas: 2, readyReplicas: 1, replicas: 2 }), 'WaitingForReadiness');
    f(dep(2, 2, { observedGeneration: 2, updatedReplicas: 2, readyReplicas: 2, replicas: 3 }), 'RollingUpdate');
    f(dep(2, 2, { observedGeneration: 2, updatedReplicas: 2, readyReplicas: 2, replicas: 2 }), 'RolloutComplete');
  });
});

describe('observedState and componentStatus', () => {
  it('judge workloads without writing and summarise replica counts', () => {
    expect(observedState(undefined, 'the workload').reason).toBe('NotCreated');
    const sts: KubeObject = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's' }, spec: { replicas: 3 }, status: { readyReplicas: 2, updatedReplicas: 3 } };
    expect(observedState(sts, 'x').reason).toBe('WaitingForReadiness');
    expect(componentStatus(sts, 9)).toEqual({ replicas: 3, readyReplicas: 2, updatedReplicas: 3, ready: '2/3' });
    expect(componentStatus(undefined, 2)).toEqual({ replicas: 2, readyReplicas: 0, updatedReplicas: 0, ready: '0/2' });
  });
});

describe('rollStatefulSet', () => {
  it('is not done while the StatefulSet still reports fewer ready replicas than its ready Pods', async () => {
    const sts = (readyReplicas: number): KubeObject => ({
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's', namespace: 'm', uid: 'u1', generation: 1 },
      spec: { replicas: 1 }, status: { observedGeneration: 1, updateRevision: 'r1', replicas: 1, readyReplicas },
    });
    const pod: KubeObject = {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 's-0', namespace: 'm', labels: { 'controller-revision-hash': 'r1' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 's', uid: 'u1', controller: true }] },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    };
    // Only reads happen before an eviction, and none is due here.
    const ctx = { reader: { list: () => [pod], get: () => undefined } } as unknown as ReconcileContext;
    expect(await rollStatefulSet(ctx, sts(0), sts(0))).toEqual({ done: false, reason: 'WaitingForReadiness', message: 'StatefulSet s reports 0/1 ready Pods' });
    expect((await rollStatefulSet(ctx, sts(1), sts(1))).done).toBe(true);
  });
});
