// operator: reconciles the strata.dev custom resources (crds/) into running Strata components.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { serveUntilSignal, startRuntime } from '../../src/lib/process/index.ts';
import { realClock } from '../runtime/clock.ts';
import { LeaderElector } from '../controller/leader-election.ts';
import type { Logger } from '../runtime/logger.ts';
import { Manager } from '../controller/manager.ts';
import { loadKubeConfig, RestKubeClient } from '../k8s/rest-client.ts';
import { electionFromFlags, kubeconfigPath, operatorOptionsFromFlags } from './flags.ts';
import { operatorMetrics, setLeader } from './metrics.ts';

const rt = startRuntime({ binary: 'operator', metricsPrefix: 'operator', defaultListenAddr: ':8080' });
const log = rt.logger as unknown as Logger;
let setup;
try {
  const kc = loadKubeConfig(kubeconfigPath());
  const options = operatorOptionsFromFlags();
  const election = electionFromFlags(process.env['POD_NAMESPACE'] ?? kc.getContextObject(kc.getCurrentContext())?.namespace ?? 'default');
  setup = { kc, options, election };
} catch (err) {
  rt.logger.fatal({ err }, 'cannot start operator');
  process.exit(2);
}
const { kc, options, election } = setup;
const client = new RestKubeClient(kc);
const identity = `${hostname()}_${randomUUID().slice(0, 8)}`;
const stop = new AbortController();

const manage = async (signal: AbortSignal) => {
  setLeader(true);
  try {
    await new Manager({ client, options, log, clock: realClock, metrics: operatorMetrics, identity }).run(signal);
  } finally {
    setLeader(false);
  }
};

const running =
  election === undefined
    ? manage(stop.signal)
    : new LeaderElector({ client, identity, clock: realClock, log, ...election }).run(stop.signal, manage);
running.catch((err: unknown) => {
  rt.logger.fatal({ err }, 'operator stopped unexpectedly');
  process.exit(1);
});

const addr = await rt.server.listen();
rt.logger.info({ identity, watchNamespaces: options.watchNamespaces ?? 'all', leaderElection: election?.name ?? 'disabled' }, `operator serving /health and /metrics on ${addr}`);
await serveUntilSignal(rt, [
  {
    name: 'operator',
    async stop() {
      stop.abort();
      await running;
      await client.close();
    },
  },
]);
