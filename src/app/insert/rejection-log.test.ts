// A rejected ingestion request (400, 413, 415) is logged as a warning naming the route, the client
// and the reason, at most once per route per REJECTION_LOG_INTERVAL_MS.

import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { type CreatedLogger, createLogger } from '../../lib/logger/index.ts';
import { DEFAULT_TENANT, type Inserter } from '../../lib/storageapi/index.ts';
import { testInsertOptions } from './insert.test-helpers.ts';
import { registerInsertRoutes } from './routes.ts';

const apps: FastifyInstance[] = [];
const loggers: CreatedLogger[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
  for (const l of loggers.splice(0)) l.stop();
});

const discard: Inserter = { addRows: async () => {} };

async function setup() {
  const lines: string[] = [];
  const created = createLogger({ format: 'default', level: 'INFO', jsonFields: {}, timezone: 'UTC', disableTimestamps: true, errorsPerSecondLimit: 0, warnsPerSecondLimit: 0, write: (l) => lines.push(l) });
  loggers.push(created);
  const app = Fastify();
  await app.register(async (scope) => registerInsertRoutes(scope, { ...testInsertOptions(discard, 1000), logger: created.logger }, DEFAULT_TENANT));
  apps.push(app);
  const post = (url: string, payload: string, headers: Record<string, string> = {}) => app.inject({ method: 'POST', url, payload, headers, remoteAddress: '10.1.2.3' });
  return { lines, post };
}

describe('rejected ingestion requests', () => {
  it('are logged as warnings naming the route, the client and the reason', async () => {
    const { lines, post } = await setup();
    const f = async (url: string, body: string, status: number, reason: RegExp, headers?: Record<string, string>) => {
      const before = lines.length;
      expect((await post(url, body, headers)).statusCode).toBe(status);
      expect(lines.slice(before)).toEqual([expect.stringMatching(new RegExp(`^warn\\t[^\\t]+\\trejected POST ${url.split('?')[0]} from 10\\.1\\.2\\.3(:\\d+)? with ${status}: ${reason.source}`))]);
    };
    await f('/api/v1/import/prometheus', 'up{ 1', 400, /1 lines? could not be parsed; first: line 1: /);
    await f('/api/v1/import', 'm 1\n'.repeat(300), 413, /request body exceeds the limit of 1000 bytes; see -maxInsertRequestSize/);
    await f('/api/v1/write', 'x', 415, /unsupported Content-Encoding "br"/, { 'content-encoding': 'br' });
    await f('/api/v1/import/csv?format=1:nope:x', '1', 400, /invalid "format" arg/);
  });

  it('are logged at most once per route per interval', async () => {
    const { lines, post } = await setup();
    for (let i = 0; i < 5; i++) expect((await post('/api/v1/import/prometheus', 'bad{ 1')).statusCode).toBe(400);
    expect((await post('/write', 'bad')).statusCode).toBe(400);
    const warnings = lines.filter((l) => l.startsWith('warn'));
    expect(warnings.map((l) => l.match(/rejected POST (\S+)/)?.[1])).toEqual(['/api/v1/import/prometheus', '/write']);
  });

  it('do not log successful requests', async () => {
    const { lines, post } = await setup();
    expect((await post('/api/v1/import/prometheus', 'ok 1')).statusCode).toBe(204);
    expect(lines).toEqual([]);
  });
});
