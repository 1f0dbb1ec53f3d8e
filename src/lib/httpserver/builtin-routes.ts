import type { FastifyInstance } from 'fastify';
import type { FlagSet } from '../flags/index.ts';
import { METRICS_CONTENT_TYPE, writeMetrics } from '../metrics/index.ts';
import './route-config.ts';

/** BuiltinRoutesOptions are what the built-in routes need from the server. */
export interface BuiltinRoutesOptions {
  readonly flagSet: FlagSet;
  readonly metricsAuthKey: string;
  readonly flagsAuthKey: string;
  readonly pprofAuthKey: string;
  /** healthy is false during -http.shutdownDelay. */
  readonly healthy: () => boolean;
}

const MAX_PROFILE_SECONDS = 600;

/**
 * pprof loads the profilers (node:inspector) on the first /debug/pprof request, off the start path
 * (issue 18 item 4). A plain import(): lib/process's lazyImport is out of this module's reach
 * (test/arch), and Node's module cache answers every later import at once.
 */
const pprof = () => import('./pprof.ts');

/** builtinRoutes registers /health, /metrics, /flags and /debug/pprof/* — the only place they exist. */
export async function builtinRoutes(app: FastifyInstance, o: BuiltinRoutesOptions): Promise<void> {
  const metricsKey = { authKey: () => o.metricsAuthKey, authKeyFlag: 'metricsAuthKey' };
  const flagsKey = { authKey: () => o.flagsAuthKey, authKeyFlag: 'flagsAuthKey' };
  const pprofKey = { authKey: () => o.pprofAuthKey, authKeyFlag: 'pprofAuthKey' };

  app.get('/health', { config: { public: true } }, async (_req, reply) => {
    // See SPEC "Operational endpoints": non-OK during the shutdown delay, so balancers drain us first.
    if (!o.healthy()) return reply.code(503).type('text/plain').send('Service Unavailable: shutting down');
    return reply.type('text/plain').send('OK');
  });

  app.get('/metrics', { config: metricsKey }, async (_req, reply) => reply.type(METRICS_CONTENT_TYPE).send(await writeMetrics()));

  app.get('/flags', { config: flagsKey }, async (_req, reply) => reply.type('text/plain').send(o.flagSet.writeFlags()));

  app.get('/debug/pprof/', { config: pprofKey }, async (_req, reply) => reply.type('text/plain').send(
    'profile: CPU profile in Chrome DevTools .cpuprofile format; ?seconds=N (default 30)\n' +
    'heap: V8 heap snapshot in Chrome DevTools .heapsnapshot format\n'));

  app.get<{ Querystring: { seconds?: string } }>('/debug/pprof/profile', { config: pprofKey }, async (req, reply) => {
    const text = req.query.seconds ?? '30';
    const seconds = Number(text);
    if (!/^\d+$/.test(text) || seconds < 1 || seconds > MAX_PROFILE_SECONDS) {
      return reply.code(400).type('text/plain').send(`invalid "seconds" arg ${JSON.stringify(text)}: must be an integer from 1 to ${MAX_PROFILE_SECONDS}`);
    }
    const aborted = new AbortController();
    req.raw.once('close', () => aborted.abort());
    reply.raw.once('close', () => aborted.abort());
    const { captureCpuProfile, CpuProfileBusyError } = await pprof();
    try {
      const profile = await captureCpuProfile(seconds, aborted.signal);
      return reply.type('application/json').header('content-disposition', 'attachment; filename="cpu.cpuprofile"').send(profile);
    } catch (err) {
      if (err instanceof CpuProfileBusyError) return reply.code(409).type('text/plain').send(err.message);
      throw err;
    }
  });

  app.get('/debug/pprof/heap', { config: pprofKey }, async (_req, reply) => {
    const { heapSnapshot } = await pprof();
    return reply.type('application/json').header('content-disposition', 'attachment; filename="heap.heapsnapshot"').send(heapSnapshot());
  });
}
