// Options of the storage RPC clients and servers (protocol: src/lib/storage/FORMAT.md, "Storage
// node RPC"). The package's entry points, in index.ts:
//
//   new InsertNodeClient({ address, timeoutMs? })   implements storageapi Inserter
//   new SelectNodeClient({ address, timeoutMs? })   implements storageapi StorageApi & TenantLister
//   serveInsertRpc(storage, listenAddr, opts?)      → RpcServer
//   serveSelectRpc(storage, listenAddr, opts?)      → RpcServer
//
// Clients throw NodeUnavailableError (storageapi) when the node cannot be talked to, and the
// storage's own errors (LimitExceededError, MatcherError, Error) re-created with class and message.

/** DEFAULT_CALL_TIMEOUT_MS bounds one call (or, for a series stream, each wait for its next frame). */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;
/** DEFAULT_CONNECT_TIMEOUT_MS bounds dialing a node and the handshake. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

/** NodeClientOptions configure a client of one storage node. */
export interface NodeClientOptions {
  /** address is the node's "host:port" (-insertAddr for InsertNodeClient, -selectAddr for SelectNodeClient); the constructor throws for anything else. */
  readonly address: string;
  /** timeoutMs bounds each call; on expiry the call is cancelled on the node and rejects with NodeUnavailableError. Default 30 s. */
  readonly timeoutMs?: number;
  /** connectTimeoutMs bounds connecting and the handshake. Default 5 s (at most timeoutMs). */
  readonly connectTimeoutMs?: number;
  /** maxConnections caps the pooled connections to the node; calls are multiplexed over them. Default 1 (insert: the series dictionary is per connection), 4 (select). */
  readonly maxConnections?: number;
}

/** RpcServerOptions configure serveInsertRpc and serveSelectRpc. */
export interface RpcServerOptions {
  /** enableTCP6 allows IPv6 listen addresses and makes ":port" bind every address (-enableTCP6). */
  readonly enableTCP6?: boolean;
  /** maxFrameBytes is the largest frame accepted from a client. Default 64 MiB (insert) / 1 MiB (select). */
  readonly maxFrameBytes?: number;
  /**
   * maxConcurrentCalls caps calls running at once per connection. Insert: past it the node stops
   * reading the connection until one ends (default 8). Select: more calls are refused with
   * NodeUnavailableError on the client (default 256).
   */
  readonly maxConcurrentCalls?: number;
  /** logger receives connection-level problems (protocol errors, failed writes). Default: silent. */
  readonly logger?: RpcLogger;
}

/** RpcLogger is the part of the process logger (pino) the servers use. */
export interface RpcLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** RpcServer is a listening insert or select RPC server. */
export interface RpcServer {
  /** address is the bound "host:port" (the real port when the listen address asked for port 0). */
  readonly address: string;
  /** close stops accepting connections, cancels the calls in flight and closes every connection. */
  close(): Promise<void>;
}
