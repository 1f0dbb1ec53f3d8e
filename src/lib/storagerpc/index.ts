// Package storagerpc is the network binding of the storageapi contract between cluster nodes and
// storage nodes (ARCHITECTURE.md §4): a versioned binary protocol over TCP documented in
// src/lib/storage/FORMAT.md ("Storage node RPC"). A storage node serves two ports — insert
// (addRows) and select (searches, deletion, tenant list) — with serveInsertRpc/serveSelectRpc;
// tsdb-insert and tsdb-select talk to each node through InsertNodeClient/SelectNodeClient, which
// implement the same interfaces as the in-process engine and throw the same error classes, plus
// storageapi's NodeUnavailableError when a node cannot be talked to.
export { InsertNodeClient } from './insert-client.ts';
export { SelectNodeClient } from './select-client.ts';
export { serveInsertRpc, DEFAULT_DICTIONARY_BYTES, type InsertRpcOptions } from './insert-server.ts';
export { serveSelectRpc, DEFAULT_SELECT_MAX_FRAME_BYTES } from './select-server.ts';
export {
  DEFAULT_CALL_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS, type NodeClientOptions, type RpcLogger, type RpcServer, type RpcServerOptions,
} from './options.ts';
