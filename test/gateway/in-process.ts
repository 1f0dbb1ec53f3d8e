// The gateway served from the test process (HttpServer + initGateway), for tests that send many
// requests (the fuzz test): the same code as the binary, without a process start per case.
import { createLogger } from '../../src/lib/logger/index.ts';
import { FlagSet } from '../../src/lib/flags/index.ts';
import { HttpServer } from '../../src/lib/httpserver/index.ts';
import { type GatewayFlags, initGateway } from '../../src/app/gateway/index.ts';
import { type Component } from '../../src/lib/process/index.ts';

/** defaultFlags are the gateway's flag defaults (as gatewayFlagsFromFlags returns them), overridable. */
export function gatewayFlags(o: Partial<GatewayFlags> = {}): GatewayFlags {
  return {
    enableAuth: true, clusterMode: false, read: undefined, write: undefined, authHeader: 'authorization', publicKeyFiles: [], publicKeys: [], jwksEndpoints: [],
    oidcDiscoveryEndpoints: [], jwksRefreshIntervalMs: 300_000, jwksMinRefreshIntervalMs: 10_000, logInvalidAuthTokens: false, responseTimeoutMs: 30_000,
    rateLimit: undefined, ...o,
  };
}

/** InProcessGateway is a gateway served on 127.0.0.1:0 by this process. */
export interface InProcessGateway {
  readonly base: string;
  readonly logs: string[];
  stop(): Promise<void>;
}

export async function startInProcessGateway(flags: GatewayFlags, pathPrefix = ''): Promise<InProcessGateway> {
  const logs: string[] = [];
  const { logger, stop: stopLogger } = createLogger({
    format: 'default', level: 'INFO', jsonFields: {}, timezone: 'UTC', disableTimestamps: true, errorsPerSecondLimit: 0, warnsPerSecondLimit: 0, write: (l) => logs.push(l),
  });
  const server = new HttpServer({
    listenAddr: '127.0.0.1:0', enableTCP6: false, pathPrefix, tls: undefined, connTimeoutMs: 0, idleConnTimeoutMs: 60_000, maxGracefulShutdownMs: 2000,
    disableResponseCompression: false, useProxyProtocol: false, basicAuth: undefined, metricsAuthKey: '', flagsAuthKey: '', pprofAuthKey: '', flagSet: new FlagSet(),
    logger, metricsPrefix: 'gateway',
  });
  const component: Component = await initGateway({ flags, server, logger, pathPrefix });
  await server.listen();
  return {
    base: `http://127.0.0.1:${server.port}`, logs,
    stop: async () => {
      await server.close();
      await component.stop();
      stopLogger();
    },
  };
}
