// operator: reconciles the strata.dev custom resources (crds/) into running Strata components.
// Wiring only, like every binary in src/cmd: the operator itself lives in operator/, its flags and
// metrics in operator/cmd/.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { electionFromFlags, kubeconfigPath, operatorOptionsFromFlags } from '../../operator/cmd/flags.ts';
import { operatorMetrics, setLeader } from '../../operator/cmd/metrics.ts';
import { realClock } from '../../operator/runtime/clock.ts';
import { LeaderElector } from '../../operator/controller/leader-election.ts';
import type { Logger } from '../../operator/runtime/logger.ts';
import { Manager } from '../../operator/controller/manager.ts';
import { loadKubeConfig, RestKubeClient } from '../../operator/k8s/rest-client.ts';
import { serveUntilSignal, startRuntime } from '../lib/process/index.ts';

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
