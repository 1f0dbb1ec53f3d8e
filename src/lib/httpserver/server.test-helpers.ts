import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FlagSet } from '../flags/index.ts';
import { createLogger } from '../logger/index.ts';
import { HttpServer, type HttpServerOptions } from './server.ts';

/** testdataPath resolves a file in ./testdata. */
export const testdataPath = (name: string) => fileURLToPath(new URL(`./testdata/${name}`, import.meta.url));
export const testCert = (name: 'a' | 'b') => readFileSync(testdataPath(`${name}.crt`));

/**
 * startTestServer starts an HttpServer on 127.0.0.1 with test defaults plus overrides and a /echo
 * route; setup may register more before it listens.
 */
export async function startTestServer(overrides: Partial<HttpServerOptions> = {}, setup?: (server: HttpServer) => void) {
  const logs: string[] = [];
  const { logger, stop } = createLogger({
    format: 'default', level: 'INFO', jsonFields: {}, timezone: 'UTC', disableTimestamps: true,
    errorsPerSecondLimit: 0, warnsPerSecondLimit: 0, write: (l) => logs.push(l),
  });
  const server = new HttpServer({
    listenAddr: '127.0.0.1:0', enableTCP6: false, pathPrefix: '', tls: undefined, connTimeoutMs: 0, idleConnTimeoutMs: 60_000,
    maxGracefulShutdownMs: 2000, disableResponseCompression: false, useProxyProtocol: false, basicAuth: undefined,
    metricsAuthKey: '', flagsAuthKey: '', pprofAuthKey: '', flagSet: new FlagSet(), logger, metricsPrefix: 'test', ...overrides,
  });
  server.register(async (app) => {
    app.get('/echo', async (req) => `ip=${req.ip} url=${req.url}`);
    app.get('/big', async () => 'x'.repeat(10_000));
    app.get('/slow', async (req) => {
      const ms = Number((req.query as { ms?: string }).ms ?? 300);
      await new Promise((r) => setTimeout(r, ms));
      return 'slow done';
    });
    app.get('/hijacked', async (req, reply) => {
      reply.hijack();
      await new Promise((r) => setTimeout(r, Number((req.query as { ms?: string }).ms ?? 300)));
      reply.raw.writeHead(200, ['content-type', 'text/plain']);
      reply.raw.end('hijacked done');
    });
    app.get('/boom', async () => {
      throw new Error('kaboom');
    });
  });
  setup?.(server);
  const address = await server.listen();
  const scheme = overrides.tls === undefined ? 'http' : 'https';
  return { server, logs, address, port: server.port, base: `${scheme}://127.0.0.1:${server.port}`, stop: async () => {
    await server.close();
    stop();
  } };
}
