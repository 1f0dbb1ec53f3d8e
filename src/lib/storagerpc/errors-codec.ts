// ERROR frame bodies (FORMAT.md, "Errors"): `u8 kind | string message | kind fields`. The node
// sends what storage threw; the client re-creates the same class with the same message, so the
// select side's error mapping (422 for limits, 400 for matchers) works across the network.

import type { ByteReader, ByteWriter } from '../bytes/index.ts';
import { LimitExceededError, MatcherError, NodeUnavailableError } from '../storageapi/errors.ts';
import { readString, writeString } from './codec.ts';
import { E_BAD_REQUEST, E_ERROR, E_LIMIT_EXCEEDED, E_MATCHER, E_PROTOCOL, E_TIMEOUT, E_UNAVAILABLE } from './frame.ts';

/** RpcCallError is an error the node chose to send with its kind (bad request, shutting down, timeout). */
export class RpcCallError extends Error {
  readonly kind: number;
  constructor(kind: number, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RpcCallError';
    this.kind = kind;
  }
}

/** writeError appends the ERROR body for err. */
export function writeError(w: ByteWriter, err: unknown): void {
  if (err instanceof LimitExceededError) {
    w.writeU8(E_LIMIT_EXCEEDED);
    writeString(w, err.message);
    writeString(w, err.flag);
    w.writeF64(err.limit);
    return;
  }
  if (err instanceof MatcherError) {
    w.writeU8(E_MATCHER);
    writeString(w, err.message);
    return;
  }
  if (err instanceof RpcCallError) {
    w.writeU8(err.kind);
    writeString(w, err.message);
    return;
  }
  w.writeU8(E_ERROR);
  writeString(w, err instanceof Error ? err.message : String(err));
}

/**
 * readError decodes an ERROR body into what the client throws: storage's classes as they were,
 * NodeUnavailableError for a node that is going away, timed out or broke the protocol, a plain
 * Error otherwise (unknown kinds from newer nodes included).
 */
export function readError(r: ByteReader, node: string): Error {
  const kind = r.readU8();
  const message = readString(r);
  switch (kind) {
    case E_LIMIT_EXCEEDED: {
      const flag = readString(r);
      return new LimitExceededError(message, flag, r.readF64());
    }
    case E_MATCHER:
      return new MatcherError(message);
    case E_UNAVAILABLE:
    case E_TIMEOUT:
    case E_PROTOCOL:
      return new NodeUnavailableError(node, `storage node "${node}": ${message}`);
    case E_BAD_REQUEST:
    case E_ERROR:
    default:
      return new Error(message);
  }
}
