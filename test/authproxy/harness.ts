// Test harness for the auth proxy: real HTTP backends and a real HttpServer with the auth proxy
// on 127.0.0.1, all in one process (process-level behaviour is in binary.test.ts).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AuthProxyComponent, type AuthProxyFlags, initAuthProxy } from '../../src/app/authproxy/index.ts';
import { FlagSet } from '../../src/lib/flags/index.ts';
import { HttpServer } from '../../src/lib/httpserver/index.ts';
import { createLogger } from '../../src/lib/logger/index.ts';

/** SeenRequest is what a backend received. */
export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly rawHeaders: string[];
  readonly body: Buffer;
}

export type BackendHandler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

/** Backend is a loopback HTTP server recording every request it answered. */
export interface Backend {
  readonly name: string;
  readonly url: string;
  readonly port: number;
  readonly seen: SeenRequest[];
  /** inFlight counts requests received and not yet answered. */
  inFlight: number;
  /** sockets are the connections open now. */
  readonly sockets: ReadonlySet<Socket>;
  /** kill closes the listener and destroys every open connection (a crashed backend). */
  kill(): Promise<void>;
}

const defaultHandler = (name: string): BackendHandler => (req, res, body) => {
  res.setHeader('content-type', 'text/plain');
  res.setHeader('x-backend', name);
  res.end(`${name} ${req.method} ${req.url} ${body.length}`);
};

/** startBackend starts a backend answering "<name> <method> <url> <body bytes>" unless given a handler. */
export async function startBackend(name: string, handler: BackendHandler = defaultHandler(name), opts: { readBody?: boolean } = {}): Promise<Backend> {
  const sockets = new Set<Socket>();
  const b = { name, seen: [] as SeenRequest[], inFlight: 0, sockets } as unknown as Backend & { url: string; port: number; server: Server };
  const server = createServer((req, res) => {
    b.inFlight++;
    res.once('close', () => b.inFlight--);
    if (opts.readBody === false) {
      b.seen.push({ method: req.method!, url: req.url!, headers: req.headers, rawHeaders: req.rawHeaders, body: Buffer.alloc(0) });
      handler(req, res, Buffer.alloc(0));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      b.seen.push({ method: req.method!, url: req.url!, headers: req.headers, rawHeaders: req.rawHeaders, body });
      handler(req, res, body);
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  b.port = (server.address() as AddressInfo).port;
  b.url = `http://127.0.0.1:${b.port}`;
  b.kill = () => new Promise<void>((resolve) => {
    server.close(() => resolve());
    for (const s of sockets) s.destroy();
  });
  return b;
}

/** testFlags are the auth proxy's defaults with fast timeouts for tests. */
export function testFlags(configPath: string, overrides: Partial<AuthProxyFlags> = {}): AuthProxyFlags {
  return {
    authConfig: configPath, configCheckIntervalMs: 0, reloadAuthKey: '', maxConcurrentRequests: 1000, maxConcurrentPerUserRequests: 300,
    maxIdleConnsPerBackend: 100, failTimeoutMs: 3000, responseTimeoutMs: 300_000, logInvalidAuthTokens: true, maxQueueDurationMs: 10_000,
    maxRequestBodySizeToRetry: 16 * 1024, loadBalancingPolicy: 'least_loaded', threads: 1, ...overrides,
  };
}

/** ProxyUnderTest is a running auth proxy with its config file and log lines. */
export interface ProxyUnderTest {
  readonly base: string;
  readonly port: number;
  readonly configPath: string;
  readonly logs: string[];
  readonly component: AuthProxyComponent;
  writeConfig(yaml: string): void;
  stop(): Promise<void>;
}

/** startProxy writes yaml to a temp file and serves the auth proxy with it on 127.0.0.1:0. */
export async function startProxy(yaml: string, o: {
  flags?: Partial<AuthProxyFlags>; eula?: boolean; pathPrefix?: string; env?: Record<string, string>; now?: () => number;
  /** configLocation replaces the temp file as -auth.config (e.g. an http URL). */
  configLocation?: string;
  bufferBudgetBytes?: number;
} = {}): Promise<ProxyUnderTest> {
  const dir = mkdtempSync(join(tmpdir(), 'authproxy-test-'));
  const configPath = join(dir, 'auth.yml');
  writeFileSync(configPath, yaml);
  const logs: string[] = [];
  const { logger, stop: stopLogger } = createLogger({
    format: 'default', level: 'INFO', jsonFields: {}, timezone: 'UTC', disableTimestamps: true,
    errorsPerSecondLimit: 0, warnsPerSecondLimit: 0, write: (l) => logs.push(l),
  });
  const server = new HttpServer({
    listenAddr: '127.0.0.1:0', enableTCP6: false, pathPrefix: o.pathPrefix ?? '', tls: undefined, connTimeoutMs: 0, idleConnTimeoutMs: 60_000,
    maxGracefulShutdownMs: 2000, disableResponseCompression: false, useProxyProtocol: false, basicAuth: undefined,
    metricsAuthKey: '', flagsAuthKey: '', pprofAuthKey: '', flagSet: new FlagSet(), logger, metricsPrefix: 'authproxy',
  });
  const component = await initAuthProxy({
    flags: testFlags(o.configLocation ?? configPath, o.flags), server, logger, pathPrefix: o.pathPrefix ?? '', ipFiltersAllowed: o.eula ?? false,
    env: o.env ?? {}, ...(o.now === undefined ? {} : { now: o.now }),
    ...(o.bufferBudgetBytes === undefined ? {} : { bufferBudgetBytes: o.bufferBudgetBytes }),
  });
  await server.listen();
  return {
    base: `http://127.0.0.1:${server.port}`, port: server.port, configPath, logs, component,
    writeConfig: (y) => writeFileSync(configPath, y),
    stop: async () => {
      await server.close();
      await component.stop();
      stopLogger();
    },
  };
}

/** basic is an Authorization value for Basic credentials. */
export const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
