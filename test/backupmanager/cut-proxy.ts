// A TCP proxy whose link can be cut and healed, to make a destination fail in the middle of a
// transfer without touching the process under test.

import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** CutProxy forwards 127.0.0.1:<port> to a target until cut. */
export interface CutProxy {
  readonly port: number;
  /** cut destroys every open connection and refuses new ones. */
  cut(): void;
  /** heal accepts connections again. */
  heal(): void;
  stop(): Promise<void>;
}

/** startCutProxy forwards to `targetPort` on 127.0.0.1. */
export async function startCutProxy(targetPort: number): Promise<CutProxy> {
  let broken = false;
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    if (broken) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      broken = true;
      for (const s of open) s.destroy();
    },
    heal() {
      broken = false;
    },
    stop: () => new Promise<void>((r) => {
      for (const s of open) s.destroy();
      server.close(() => r());
    }),
  };
}
