// A stand-in for the storage's snapshot API, for the backup manager's process tests that do not
// need a real TSDB (API, CLI, schedule, destination faults). It does to the disk what the
// storage does: /snapshot/create hard-links every file of a live directory into
// <dataDir>/snapshots/<name>/ and answers {"status":"ok","snapshot":"<name>"};
// /snapshot/delete?snapshot=<name> removes that directory.

import { link, mkdir, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** FakeSnapshotServer is a running fake snapshot API. */
export interface FakeSnapshotServer {
  /** createUrl is the /snapshot/create URL to pass as -snapshot.createURL. */
  readonly createUrl: string;
  readonly created: string[];
  readonly deleted: string[];
  stop(): Promise<void>;
}

/** startFakeSnapshotServer serves snapshots of `live` into `<dataDir>/snapshots/` on 127.0.0.1. */
export async function startFakeSnapshotServer(dataDir: string, live: string): Promise<FakeSnapshotServer> {
  const created: string[] = [];
  const deleted: string[] = [];
  let n = 0;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const answer = (status: number, body: unknown) => {
      res.statusCode = status;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(body));
    };
    const handle = async () => {
      if (url.pathname === '/snapshot/create') {
        const name = `${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}-${(++n).toString(16).toUpperCase().padStart(16, '0')}`;
        await linkTree(live, join(dataDir, 'snapshots', name));
        created.push(name);
        return answer(200, { status: 'ok', snapshot: name });
      }
      if (url.pathname === '/snapshot/delete') {
        const name = url.searchParams.get('snapshot') ?? '';
        if (!created.includes(name)) return answer(500, { status: 'error', msg: `unknown snapshot "${name}"` });
        await rm(join(dataDir, 'snapshots', name), { recursive: true, force: true });
        deleted.push(name);
        return answer(200, { status: 'ok' });
      }
      return answer(404, { status: 'error', msg: 'not found' });
    };
    handle().catch((err: unknown) => answer(500, { status: 'error', msg: (err as Error).message }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    createUrl: `http://127.0.0.1:${port}/snapshot/create`,
    created,
    deleted,
    stop: () => new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    }),
  };
}

async function linkTree(src: string, dst: string): Promise<void> {
  await mkdir(dst, { recursive: true });
  for (const e of await readdir(src, { withFileTypes: true })) {
    if (e.isDirectory()) await linkTree(join(src, e.name), join(dst, e.name));
    else if (e.isFile()) await link(join(src, e.name), join(dst, e.name));
  }
}
