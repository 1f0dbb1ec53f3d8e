// Process-level helpers for the gateway: start `src/cmd/gateway.ts` on 127.0.0.1:0, a recording
// upstream that stands for a TSDB (or a cluster node) and checks what the gateway forwarded, key
// files, and metric reads. Everything registers with the tsdb harness's killAll.
import { writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { type StartedProcess, startProcess } from '../e2e/process-harness.ts';
import { track } from '../tsdb/harness.ts';

export const GATEWAY_BINARY = 'src/cmd/gateway.ts';

/** Gateway is a running gateway process. */
export interface Gateway {
  readonly proc: StartedProcess;
  /** base is `http://127.0.0.1:<port>`. */
  readonly base: string;
  stop(): Promise<number | string>;
  /** reload sends SIGHUP. */
  reload(): void;
}

/** startGateway starts the gateway with -eula and args, resolving once it listens. */
export async function startGateway(args: readonly string[]): Promise<Gateway> {
  const proc = track(startProcess(GATEWAY_BINARY, ['-eula', '-httpListenAddr=127.0.0.1:0', '-loggerDisableTimestamps', ...args]));
  const m = await proc.waitForOutput(/gateway listening on (http:\/\/127\.0\.0\.1:\d+)/, 30_000);
  return {
    proc, base: m[1]!,
    stop: () => {
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.kill('SIGTERM');
      return proc.exited;
    },
    reload: () => proc.kill('SIGHUP'),
  };
}

/** Seen is one request the upstream received. */
export interface Seen {
  readonly method: string;
  /** url is the request-target as received (path and query, still encoded). */
  readonly url: string;
  readonly path: string;
  readonly args: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export type UpstreamHandler = (s: Seen, res: ServerResponse) => void;

/** Upstream is a loopback HTTP server recording every request; by default it answers 200 "ok". */
export interface Upstream {
  readonly url: string;
  readonly seen: Seen[];
  handler: UpstreamHandler;
  close(): Promise<void>;
}

export async function startUpstream(handler: UpstreamHandler = (_s, res) => void res.end('ok')): Promise<Upstream> {
  const sockets = new Set<Socket>();
  const up = { seen: [] as Seen[], handler } as Upstream & { url: string };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const u = new URL(req.url!, 'http://x');
      const s: Seen = { method: req.method!, url: req.url!, path: u.pathname, args: u.searchParams, headers: req.headers, body };
      up.seen.push(s);
      up.handler(s, res);
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  up.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  up.close = () => new Promise<void>((resolve) => {
    server.close(() => resolve());
    for (const s of sockets) s.destroy();
  });
  return up;
}

/** writeKeyFile writes a PEM key to dir/name and returns the path. */
export async function writeKeyFile(dir: string, name: string, pem: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, pem);
  return path;
}

/** metricValue reads one sample of /metrics (name with its labels exactly as rendered), NaN when absent. */
export async function metricValue(base: string, series: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const escaped = series.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text);
  return m === null ? NaN : Number(m[1]);
}

/** bearer is an Authorization value. */
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
