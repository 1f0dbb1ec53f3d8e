// A further thread of the auth proxy (threads.ts): the same proxy on the first thread's port, with
// the first thread's config, limits and backend loads; metrics and reloads go through the first thread.
import { parentPort, workerData } from 'node:worker_threads';
import { relayMetricsFromThisThread, renderMetricsWith, takeMetricsDelta } from '../../lib/metrics/index.ts';
import type { ReloadOutcome } from '../../lib/config/index.ts';
import type { FromThread, ThreadData, ToThread } from './thread-messages.ts';

// Before any module declares a summary: observations are counted by the first thread.
relayMetricsFromThisThread();
const { initAuthProxy } = await import('./component.ts');
const { authProxyFlagsFromFlags } = await import('./flags.ts');
const { defaultFlagSet } = await import('../../lib/flags/index.ts');
const { eulaAccepted, startThreadRuntime } = await import('../../lib/process/index.ts');

const port = parentPort!;
const data = workerData as ThreadData;
const send = (m: FromThread) => port.postMessage(m);
const rt = startThreadRuntime({ binary: 'authproxy', metricsPrefix: 'authproxy', defaultListenAddr: ':8427', allowProxyProtocol: true });
const component = await initAuthProxy({
  flags: authProxyFlagsFromFlags(), server: rt.server, logger: rt.logger.child({ thread: data.index + 1 }), ipFiltersAllowed: eulaAccepted(),
  pathPrefix: String(defaultFlagSet.lookup('http.pathPrefix')?.value ?? ''),
  bufferBudgetBytes: data.bufferBudgetBytes,
  thread: { globalLimiter: data.globalLimiter, config: data.config, requestReload: () => requestReload() },
});

const reloads = new Map<number, (outcome: ReloadOutcome) => void>();
let nextReload = 1;
function requestReload(): Promise<ReloadOutcome> {
  return new Promise((resolve) => {
    const id = nextReload++;
    reloads.set(id, resolve);
    send({ type: 'reload', id });
  });
}

const scrapes = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void }>();
let nextScrape = 1;
renderMetricsWith(() => new Promise<string>((resolve, reject) => {
  const id = nextScrape++;
  scrapes.set(id, { resolve, reject });
  send({ type: 'scrape', id });
}));

const sendDelta = async (id: number | undefined) => send({ type: 'delta', id, delta: await takeMetricsDelta() });
const flushTimer = setInterval(() => void sendDelta(undefined), 1000);
flushTimer.unref();

port.on('message', (m: ToThread) => {
  switch (m.type) {
    case 'config':
      try {
        component.applyThreadConfig(m.config);
      } catch (err) {
        rt.logger.error({ err }, 'cannot apply the config the first thread serves; keeping the previous one');
      }
      send({ type: 'applied', id: m.id });
      return;
    case 'collect':
      void sendDelta(m.id);
      return;
    case 'scraped': {
      const s = scrapes.get(m.id);
      scrapes.delete(m.id);
      if (m.text !== undefined) s?.resolve(m.text);
      else s?.reject(new Error(`cannot render metrics: ${m.error ?? 'unknown error'}`));
      return;
    }
    case 'reloaded':
      reloads.get(m.id)?.(m.outcome);
      reloads.delete(m.id);
      return;
    case 'shutdown-delay':
      rt.server.beginShutdownDelay();
      return;
    case 'close':
      void (async () => {
        await rt.server.close();
        await component.stop();
        clearInterval(flushTimer);
        await sendDelta(undefined);
        port.close();
        // Nothing should keep the thread alive now; if something does, end it anyway.
        setTimeout(() => process.exit(0), 5000).unref();
      })();
      return;
    default:
      return;
  }
});

await rt.server.listen(data.port);
send({ type: 'ready' });
