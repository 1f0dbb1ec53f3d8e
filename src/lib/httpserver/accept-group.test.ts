import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AcceptGroup } from './accept-group.ts';

const HOST = '127.0.0.1';
const cleanup: Array<() => unknown> = [];

afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

function primaryServer(): { server: Server; accepted: Socket[] } {
  const accepted: Socket[] = [];
  const server = createServer((s) => {
    accepted.push(s);
    s.on('error', () => {});
  });
  cleanup.push(() => new Promise<void>((r) => {
    for (const s of accepted) s.destroy();
    if (server.listening) server.close(() => r());
    else r();
  }));
  return { server, accepted };
}

async function group(server: Server, port: number, count: number): Promise<AcceptGroup> {
  const g = await AcceptGroup.listen(server, HOST, port, count);
  cleanup.push(() => g.close());
  return g;
}

function portOf(server: Server): number {
  return (server.address() as { port: number }).port;
}

function openClients(port: number, n: number): Socket[] {
  const clients = Array.from({ length: n }, () => connect(port, HOST).on('error', () => {}));
  cleanup.push(() => clients.forEach((c) => c.destroy()));
  return clients;
}

// Counts event-loop turns (one setImmediate per turn) until `done` holds.
async function turnsUntil(done: () => boolean): Promise<number> {
  let turns = 0;
  while (!done()) {
    await new Promise((r) => setImmediate(r));
    if (++turns > 10_000) throw new Error('condition never held');
  }
  return turns;
}

function blockFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* the kernel completes handshakes meanwhile */ }
}

describe('AcceptGroup', () => {
  it('hands the connections of every listening socket to the primary server', async () => {
    const { server, accepted } = primaryServer();
    const g = await group(server, 0, 4);
    expect(g.sockets).toBe(4);
    openClients(portOf(server), 40);
    await turnsUntil(() => accepted.length === 40);
    // The kernel spreads connections over the sockets by address hash: some come through the extras.
    const viaExtras = accepted.filter((s) => (s as Socket & { server?: Server }).server !== server).length;
    expect(viaExtras).toBeGreaterThan(0);
    expect(viaExtras).toBeLessThan(40);
  });

  it('accepts a burst of queued connections in fewer event-loop turns than one socket', async () => {
    const turns: number[] = [];
    for (const count of [1, 16]) {
      const { server, accepted } = primaryServer();
      await group(server, 0, count);
      openClients(portOf(server), 64);
      blockFor(100);
      turns.push(await turnsUntil(() => accepted.length === 64));
    }
    // libuv accepts one connection per listening socket and turn.
    expect(turns[0]).toBeGreaterThanOrEqual(60);
    expect(turns[1]).toBeLessThan(turns[0]! / 2);
  });

  it('fails with EADDRINUSE on a port another server listens on, with or without SO_REUSEPORT', async () => {
    const first = primaryServer();
    await group(first.server, 0, 4);
    const port = portOf(first.server);
    const second = primaryServer();
    await expect(AcceptGroup.listen(second.server, HOST, port, 4)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(second.server.listening).toBe(false);

    const plain = primaryServer();
    await new Promise<void>((r) => plain.server.listen(0, HOST, () => r()));
    await expect(AcceptGroup.listen(second.server, HOST, portOf(plain.server), 4)).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });

  it('close waits for the connections the extra sockets accepted, then the port is free', async () => {
    const { server, accepted } = primaryServer();
    const g = await AcceptGroup.listen(server, HOST, 0, 4);
    const port = portOf(server);
    openClients(port, 24);
    await turnsUntil(() => accepted.length === 24);
    const viaPrimary = (s: Socket) => (s as Socket & { server?: Server }).server === server;
    for (const s of accepted.filter(viaPrimary)) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
    let closed = false;
    const closing = g.close().then(() => {
      closed = true;
    });
    await turnsUntil(() => true);
    await new Promise((r) => setTimeout(r, 20));
    expect(closed).toBe(false);
    for (const s of accepted) s.destroy();
    await closing;
    const refused = await new Promise<string>((r) => connect(port, HOST).on('error', (e: NodeJS.ErrnoException) => r(e.code ?? '')).on('connect', () => r('connected')));
    expect(refused).toBe('ECONNREFUSED');
  });
});
