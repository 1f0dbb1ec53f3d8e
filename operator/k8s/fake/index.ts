// In-memory Kubernetes API for tests: store, simulated controllers, and a KubeClient over them.
import { BUILTIN, CUSTOM } from '../resources.ts';
import type { KubeObject } from '../types.ts';
import { ObjectStore } from './store.ts';
import type { Admission, StoreOptions } from './store.ts';

export { ObjectStore } from './store.ts';
export type { Admission, StoreChange, StoreOptions } from './store.ts';
export { FakeKubeClient } from './fake-client.ts';
export { simulateControllers, defaultIsReady, templateHash } from './controllers.ts';
export type { Simulation, SimulationOptions } from './controllers.ts';
export { evictPod, isPodReady, pdbStatus } from './eviction.ts';

let nextClusterIp = 1;

/** assignClusterIp defaults spec.clusterIP of new Services, as the API server's allocator does. */
export const assignClusterIp: Admission = ({ operation, object, old }) => {
  const spec = (object['spec'] ?? {}) as { clusterIP?: string };
  if (spec.clusterIP !== undefined && spec.clusterIP !== '') return object;
  const prev = (old?.['spec'] as { clusterIP?: string } | undefined)?.clusterIP;
  const ip = operation === 'UPDATE' && prev !== undefined ? prev : `10.96.${Math.floor(nextClusterIp / 250)}.${(nextClusterIp++ % 250) + 1}`;
  return { ...object, spec: { ...spec, clusterIP: ip } } as KubeObject;
};

/**
 * newStore returns a store serving every built-in type the operator uses and, unless
 * customAdmissions is null (another API server serves them), the strata.dev types.
 */
export function newStore(opts: StoreOptions = {}, customAdmissions: Readonly<Record<string, readonly Admission[]>> | null = {}): ObjectStore {
  const store = new ObjectStore(opts);
  for (const type of Object.values(BUILTIN)) store.registerType(type, ...(type.kind === 'Service' ? [assignClusterIp] : []));
  if (customAdmissions !== null) for (const type of Object.values(CUSTOM)) store.registerType(type, ...(customAdmissions[type.kind] ?? []));
  return store;
}
