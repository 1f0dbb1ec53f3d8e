import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParseError } from '../../lib/backup/index.ts';
import { checkSnapshotDeleteResponse, createSnapshotClient, deriveSnapshotDeleteUrl, parseSnapshotCreateResponse } from './snapshot-client.ts';

describe('deriveSnapshotDeleteUrl', () => {
  it('replaces the last /create with /delete and keeps the rest', () => {
    const f = (create: string, want: string | RegExp) =>
      typeof want === 'string' ? expect(deriveSnapshotDeleteUrl(create)).toBe(want) : expect(() => deriveSnapshotDeleteUrl(create)).toThrow(want);
    f('http://127.0.0.1:8428/snapshot/create', 'http://127.0.0.1:8428/snapshot/delete');
    f('http://tsdb:8428/prefix/snapshot/create?authKey=k', 'http://tsdb:8428/prefix/snapshot/delete?authKey=k');
    f('https://u:p@tsdb/snapshot/create/', 'https://u:p@tsdb/snapshot/delete/');
    f('http://tsdb/create/snapshot', /does not end in \/create; set -snapshot.deleteURL/);
    f('ftp://tsdb/snapshot/create', /only http and https/);
    f('not a url', /not a URL/);
  });
});

describe('parseSnapshotCreateResponse', () => {
  it('returns the snapshot name or a ParseError saying why', () => {
    const f = (body: string, want: string | RegExp) => {
      if (typeof want === 'string') return expect(parseSnapshotCreateResponse(body)).toBe(want);
      expect(() => parseSnapshotCreateResponse(body)).toThrow(ParseError);
      expect(() => parseSnapshotCreateResponse(body)).toThrow(want);
    };
    f('{"status":"ok","snapshot":"20240305070000-17B9E0A1C2D3E4F5"}', '20240305070000-17B9E0A1C2D3E4F5');
    f('{"status":"error","msg":"disk full"}', /snapshot create failed: disk full/);
    f('{"status":"ok"}', /unusable snapshot name undefined/);
    f('{"status":"ok","snapshot":"../etc"}', /unusable snapshot name/);
    f('{"status":"ok","snapshot":"a/b"}', /unusable snapshot name/);
    f('{"status":"ok","snapshot":"a..b"}', /unusable snapshot name/);
    f('<html>', /cannot parse the snapshot create response "<html>"/);
    f('[1]', /expected a JSON object/);
  });
});

describe('checkSnapshotDeleteResponse', () => {
  it('accepts status ok only', () => {
    expect(() => checkSnapshotDeleteResponse('{"status":"ok"}')).not.toThrow();
    expect(() => checkSnapshotDeleteResponse('{"status":"error","msg":"no such snapshot"}')).toThrow(/snapshot delete failed: no such snapshot/);
  });
});

describe('createSnapshotClient', () => {
  const seen: { url: string; auth: string | undefined }[] = [];
  let handler: (req: IncomingMessage, res: ServerResponse) => void = () => {};
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', auth: req.headers.authorization });
    handler(req, res);
  });
  let base = '';
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => {
    server.close(() => r());
    server.closeAllConnections();
  }));

  it('creates and deletes snapshots, sending URL credentials as Basic auth', async () => {
    handler = (req, res) => res.end(req.url?.startsWith('/snapshot/create') ? '{"status":"ok","snapshot":"s1"}' : '{"status":"ok"}');
    seen.length = 0;
    const create = base.replace('http://', 'http://u%40x:p%3Aw@') + '/snapshot/create?authKey=k';
    const c = createSnapshotClient({ createUrl: create, deleteUrl: deriveSnapshotDeleteUrl(create) });
    expect(await c.create()).toBe('s1');
    await c.delete('s1');
    const basic = `Basic ${Buffer.from('u@x:p:w').toString('base64')}`;
    expect(seen).toEqual([
      { url: '/snapshot/create?authKey=k', auth: basic },
      { url: '/snapshot/delete?authKey=k&snapshot=s1', auth: basic },
    ]);
  });

  it('reports HTTP errors, storage errors, timeouts and unreachable hosts clearly', async () => {
    const c = createSnapshotClient({ createUrl: `${base}/snapshot/create`, deleteUrl: `${base}/snapshot/delete`, timeoutMs: 200 });
    handler = (_req, res) => {
      res.statusCode = 500;
      res.end('{"status":"error","msg":"cannot create snapshot: disk full"}');
    };
    await expect(c.create()).rejects.toThrow(/cannot call http:\/\/127\.0\.0\.1:\d+\/snapshot\/create: HTTP 500: .*disk full/);
    handler = (_req, res) => res.end('{"status":"error","msg":"unknown snapshot"}');
    await expect(c.delete('s9')).rejects.toThrow(/snapshot delete failed: unknown snapshot/);
    handler = () => {}; // never answers
    await expect(c.create()).rejects.toThrow(/no answer in 0.2s/);
    const down = createSnapshotClient({ createUrl: 'http://127.0.0.1:1/snapshot/create', deleteUrl: 'http://127.0.0.1:1/snapshot/delete' });
    await expect(down.create()).rejects.toThrow(/cannot call http:\/\/127\.0\.0\.1:1\/snapshot\/create: fetch failed/);
  });

  it('stops at once when the caller aborts', async () => {
    handler = () => {};
    const c = createSnapshotClient({ createUrl: `${base}/snapshot/create`, deleteUrl: `${base}/snapshot/delete` });
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('shutting down')), 20);
    await expect(c.create(ac.signal)).rejects.toThrow('shutting down');
  });
});
