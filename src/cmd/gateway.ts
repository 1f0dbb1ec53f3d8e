// gateway: the JWT gateway with rate limiting in front of the TSDB (SPEC A). An enterprise
// component: it refuses to start without -eula (status 2, one line).
import { gatewayFlagsFromFlags, initGateway } from '../app/gateway/index.ts';
import { defaultFlagSet } from '../lib/flags/index.ts';
import { serveUntilSignal, startRuntime } from '../lib/process/index.ts';

const rt = startRuntime({ binary: 'gateway', metricsPrefix: 'gateway', defaultListenAddr: ':8431', allowProxyProtocol: true, requireEula: true });
let flags;
try {
  flags = gatewayFlagsFromFlags();
} catch (err) {
  process.stderr.write(`gateway: ${(err as Error).message}\n`);
  process.exit(2);
}
let component;
try {
  component = await initGateway({ flags, server: rt.server, logger: rt.logger, pathPrefix: String(defaultFlagSet.lookup('http.pathPrefix')?.value ?? '') });
} catch (err) {
  rt.logger.fatal({ err }, 'cannot start the gateway');
  process.exit(1);
}
const addr = await rt.server.listen();
const target = (t: { url: string } | undefined) => (t === undefined ? 'not set' : t.url);
rt.logger.info(`gateway listening on ${rt.server.app.initialConfig.https === undefined ? 'http' : 'https'}://${addr}; reads to ${target(flags.read)}, writes to ${target(flags.write)}${flags.clusterMode ? ' (cluster mode)' : ''}`);
await serveUntilSignal(rt, [component]);
