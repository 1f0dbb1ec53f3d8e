// TSDBSingle → ServiceAccount, Service, StatefulSet (one Pod; backup sidecar when configured).
import type { TSDBSingle } from '../../api/resources.ts';
import { commonLabels, selectorLabels } from '../../labels.ts';
import type { KubeObject } from '../../k8s/types.ts';
import { workloadName } from '../../names.ts';
import { command, DATA_PATH, DATA_VOLUME, PORTS } from '../common/binaries.ts';
import { service, serviceAccount } from '../common/objects.ts';
import { BACKUP_CONTAINER } from '../common/backup.ts';
import { baseImage, renderArgs } from '../common/options.ts';
import { queryWorkersFlag } from '../common/query-workers.ts';
import type { BuildOptions } from '../common/options.ts';
import { storageStatefulSet } from '../common/statefulset.ts';

/** buildTSDBSingle returns the desired children of a (defaulted) TSDBSingle. Pure. */
export function buildTSDBSingle(cr: TSDBSingle, opts: BuildOptions): KubeObject[] {
  const spec = cr.spec;
  const name = workloadName('tsdb-single', cr.metadata.name!);
  const meta = { name, namespace: cr.metadata.namespace!, labels: commonLabels('tsdb-single', cr.metadata.name!, cr.kind) };
  const selector = selectorLabels('tsdb-single', cr.metadata.name!);
  const args = renderArgs({ httpListenAddr: `:${PORTS.tsdb}`, storageDataPath: DATA_PATH, retentionPeriod: spec.retentionPeriod, ...queryWorkersFlag(spec.resources) }, spec.extraArgs ?? {});
  const sts = storageStatefulSet({
    meta,
    replicas: 1,
    serviceName: name,
    selector,
    spec,
    main: { name: 'tsdb', defaultImage: baseImage(opts, 'tsdb', 'tsdb'), command: command('tsdb'), args, ports: [{ name: 'http', containerPort: PORTS.tsdb }], volumeMounts: [{ name: DATA_VOLUME, mountPath: DATA_PATH }] },
    storagePort: PORTS.tsdb,
    backupImage: baseImage(opts, BACKUP_CONTAINER, 'backupmanager'),
    perPodBackupDestination: false,
    ...(spec.imagePullSecrets === undefined ? {} : { imagePullSecrets: spec.imagePullSecrets }),
  });
  return [
    serviceAccount(meta),
    service(meta, { selector, ports: [{ name: 'http', port: PORTS.tsdb }], type: spec.service.type, ...(spec.service.annotations === undefined ? {} : { annotations: spec.service.annotations }) }),
    sts,
  ] as KubeObject[];
}
