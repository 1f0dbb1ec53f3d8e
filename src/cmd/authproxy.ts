// authproxy: the credential-matching router and load balancer in front of Strata (SPEC B).
import { authProxyFlagsFromFlags, initAuthProxy } from '../app/authproxy/index.ts';
import { defaultFlagSet } from '../lib/flags/index.ts';
import { eulaAccepted, serveUntilSignal, startRuntime } from '../lib/process/index.ts';

const rt = startRuntime({ binary: 'authproxy', metricsPrefix: 'authproxy', defaultListenAddr: ':8427', allowProxyProtocol: true });
let flags;
try {
  flags = authProxyFlagsFromFlags();
} catch (err) {
  process.stderr.write(`authproxy: ${(err as Error).message}\n`);
  process.exit(2);
}
let component;
try {
  component = await initAuthProxy({
    flags, server: rt.server, logger: rt.logger, ipFiltersAllowed: eulaAccepted(),
    pathPrefix: String(defaultFlagSet.lookup('http.pathPrefix')?.value ?? ''),
  });
} catch (err) {
  rt.logger.fatal({ err }, `cannot start authproxy with -auth.config="${flags.authConfig}"`);
  process.exit(1);
}
const addr = await rt.server.listen();
rt.logger.info(`authproxy listening on ${rt.server.app.initialConfig.https === undefined ? 'http' : 'https'}://${addr}`);
await serveUntilSignal(rt, [component]);
