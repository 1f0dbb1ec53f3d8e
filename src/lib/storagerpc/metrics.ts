// Metrics of the storage RPC, declared on first use so that a binary exports only its side:
// tsdb-storage the server's (by service and method), tsdb-insert and tsdb-select the client's (by
// node and method).

import { counter, gauge, summary, type Counter, type Gauge, type Summary } from '../metrics/index.ts';

export interface ServerMetrics {
  readonly requests: Counter<'service' | 'method'>;
  readonly errors: Counter<'service' | 'method'>;
  readonly duration: Summary<'service' | 'method'>;
  readonly received: Counter<'service'>;
  readonly sent: Counter<'service'>;
  readonly connections: Gauge<'service'>;
  readonly protocolErrors: Counter<'service'>;
}

let server: ServerMetrics | undefined;

/** serverMetrics returns the server-side RPC metrics (tsdb_rpc_*). */
export function serverMetrics(): ServerMetrics {
  server ??= {
    requests: counter('tsdb_rpc_requests_total', 'RPC calls received by the storage node, by service (insert, select) and method', ['service', 'method']),
    errors: counter('tsdb_rpc_request_errors_total', 'RPC calls the storage node answered with an error, by service and method', ['service', 'method']),
    duration: summary('tsdb_rpc_request_duration_seconds', 'Time from an RPC call\'s arrival to its last frame, by service and method', ['service', 'method']),
    received: counter('tsdb_rpc_received_bytes_total', 'Bytes read from RPC connections, by service', ['service']),
    sent: counter('tsdb_rpc_sent_bytes_total', 'Bytes written to RPC connections, by service', ['service']),
    connections: gauge('tsdb_rpc_connections', 'Open RPC connections, by service', ['service']),
    protocolErrors: counter('tsdb_rpc_protocol_errors_total', 'RPC connections closed because the peer broke the protocol, by service', ['service']),
  };
  return server;
}

export interface ClientMetrics {
  readonly requests: Counter<'node' | 'method'>;
  readonly errors: Counter<'node' | 'method' | 'reason'>;
  readonly duration: Summary<'node' | 'method'>;
  readonly received: Counter<'node'>;
  readonly sent: Counter<'node'>;
  readonly dials: Counter<'node' | 'result'>;
}

let client: ClientMetrics | undefined;

/** clientMetrics returns the client-side RPC metrics (tsdb_rpc_client_*). */
export function clientMetrics(): ClientMetrics {
  client ??= {
    requests: counter('tsdb_rpc_client_requests_total', 'RPC calls sent to storage nodes, by node and method', ['node', 'method']),
    errors: counter('tsdb_rpc_client_request_errors_total', 'RPC calls to storage nodes that failed, by node, method and reason (unavailable, timeout, remote, canceled)', ['node', 'method', 'reason']),
    duration: summary('tsdb_rpc_client_request_duration_seconds', 'Duration of RPC calls to storage nodes, by node and method', ['node', 'method']),
    received: counter('tsdb_rpc_client_received_bytes_total', 'Bytes read from storage node connections, by node', ['node']),
    sent: counter('tsdb_rpc_client_sent_bytes_total', 'Bytes written to storage node connections, by node', ['node']),
    dials: counter('tsdb_rpc_client_dials_total', 'Connections dialed to storage nodes, by node and result (ok, error)', ['node', 'result']),
  };
  return client;
}
