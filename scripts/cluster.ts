// npm run cluster: a local TSDB cluster on loopback — two tsdb-storage nodes, one tsdb-insert and
// one tsdb-select, both with -replicationFactor=2 — with data under ./strata-data/cluster and each
// process's log in ./strata-data/cluster/<name>.log. Prints the URLs and curl lines to write and
// query. Ctrl-C stops everything (each process shuts down gracefully); SIGTERM or SIGINT sent to
// this script alone stops insert and select first, then the storage nodes.

import { CLUSTER_STOP_ORDER, clusterSummary, INSERT_HTTP, REPLICATION_FACTOR, SELECT_HTTP, startCluster } from './local/cluster.ts';
import { LocalProcesses } from './local/processes.ts';

const procs = new LocalProcesses('strata-data/cluster', CLUSTER_STOP_ORDER);
try {
  await startCluster(procs);
} catch (err) {
  await procs.failStart('the cluster', err);
}

const ins = `http://localhost:${INSERT_HTTP}`;
const sel = `http://localhost:${SELECT_HTTP}`;
process.stdout.write(`Strata cluster on loopback, -replicationFactor=${REPLICATION_FACTOR}; data and logs in ${procs.relative(procs.root)}/
${clusterSummary()}
Write (tenant 0):
  curl -d 'temperature{room="kitchen"} 21.5' ${ins}/insert/0/prometheus/api/v1/import/prometheus
  curl -d 'cpu,host=a usage=42' '${ins}/insert/0/influx/write'
Query:
  curl '${sel}/select/0/prometheus/api/v1/query?query=temperature'
  curl '${sel}/select/0/prometheus/api/v1/series?match[]=temperature'
  curl '${sel}/admin/tenants'
Ctrl-C stops the cluster.
`);
