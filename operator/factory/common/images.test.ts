import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../k8s/types.ts';
import { sameImages, templateImages } from './images.ts';

const workload = (kind: string, name: string, containers: { name: string; image: string }[], initContainers: { name: string; image: string }[] = []): KubeObject =>
  ({ apiVersion: 'apps/v1', kind, metadata: { name }, spec: { template: { spec: { containers, initContainers } } } }) as KubeObject;

describe('templateImages', () => {
  it('maps container names to images across workloads, ignoring init containers and other objects', () => {
    const f = (objects: KubeObject[], want: Record<string, string>) => expect(templateImages(objects)).toEqual(want);
    f([], {});
    f([{ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [] } }], {});
    f([workload('StatefulSet', 'a', [{ name: 'tsdb', image: 'r/tsdb:1' }, { name: 'backup', image: 'r/bm:1' }], [{ name: 'restore', image: 'r/bm:1' }])], { tsdb: 'r/tsdb:1', backup: 'r/bm:1' });
    f([workload('StatefulSet', 'a', [{ name: 'tsdb-storage', image: 'r/t:1' }]), workload('Deployment', 'b', [{ name: 'tsdb-select', image: 'r/t:2' }])], { 'tsdb-storage': 'r/t:1', 'tsdb-select': 'r/t:2' });
  });

  it('refuses two containers of one name with different images', () => {
    expect(() => templateImages([workload('Deployment', 'a', [{ name: 'x', image: 'r:1' }]), workload('Deployment', 'b', [{ name: 'x', image: 'r:2' }])])).toThrow(/containers named "x" of Deployment "b" run different images/);
  });
});

describe('sameImages', () => {
  it('compares records key by key', () => {
    const f = (a: Record<string, string> | undefined, b: Record<string, string>, want: boolean) => expect(sameImages(a, b)).toBe(want);
    f(undefined, {}, false);
    f({}, {}, true);
    f({ a: 'r:1' }, { a: 'r:1' }, true);
    f({ a: 'r:1' }, { a: 'r:2' }, false);
    f({ a: 'r:1', b: 'r:1' }, { a: 'r:1' }, false);
    f({ a: 'r:1' }, { a: 'r:1', b: 'r:1' }, false);
  });
});
