// Resolution of TSDB references to Service URLs; names are deterministic, so this is pure.
import type { TSDBRef } from '../../api/common.ts';
import { serviceHost, workloadName } from '../../names.ts';
import { PORTS } from './binaries.ts';

/** TSDBEndpoints are the base URLs behind a TSDB resource. */
export interface TSDBEndpoints {
  readonly cluster: boolean;
  /** read is the single-node URL or the cluster select URL. */
  readonly read: string;
  /** write is the single-node URL or the cluster insert URL. */
  readonly write: string;
}

/** tsdbEndpoints resolves a reference made from `fromNamespace`. */
export function tsdbEndpoints(ref: TSDBRef, fromNamespace: string): TSDBEndpoints {
  const ns = ref.namespace ?? fromNamespace;
  if (ref.kind === 'TSDBSingle') {
    const url = `http://${serviceHost(workloadName('tsdb-single', ref.name), ns)}:${PORTS.tsdb}`;
    return { cluster: false, read: url, write: url };
  }
  return {
    cluster: true,
    read: `http://${serviceHost(workloadName('tsdb-select', ref.name), ns)}:${PORTS.select}`,
    write: `http://${serviceHost(workloadName('tsdb-insert', ref.name), ns)}:${PORTS.insert}`,
  };
}
