import { arrayFlag, boolFlag, durationFlag, FlagError, defaultFlagSet, stringFlag, valueFlag } from '../flags/index.ts';
import type { Logger } from '../logger/index.ts';
import type { HttpServerOptions } from './server.ts';
import { cipherList, parseTlsMinVersion } from './tls.ts';

const httpListenAddr = stringFlag('httpListenAddr', ':8428', 'TCP address to listen on for HTTP requests, e.g. ":8428" or "127.0.0.1:8428"; IPv6 needs -enableTCP6');
const enableTCP6 = boolFlag('enableTCP6', false, 'Whether to enable IPv6 for listening and dialing; by default only IPv4 is used');
const pathPrefix = valueFlag('http.pathPrefix', '', 'Prefix added to every served path, e.g. "/strata" serves /strata/metrics', normalizePathPrefix, (s) => s);
const tls = boolFlag('tls', false, 'Whether to serve HTTPS; needs -tlsCertFile and -tlsKeyFile');
const tlsCertFile = stringFlag('tlsCertFile', '', 'Path to the TLS certificate for -tls; re-read every second, so rotation needs no restart');
const tlsKeyFile = stringFlag('tlsKeyFile', '', 'Path to the TLS key for -tls; re-read every second, so rotation needs no restart');
const tlsMinVersion = valueFlag('tlsMinVersion', '', 'Minimum TLS version with -tls: TLS10, TLS11, TLS12 or TLS13', (s) => {
  parseTlsMinVersion(s);
  return s;
}, (s) => s);
const tlsCipherSuites = arrayFlag('tlsCipherSuites', 'TLS cipher suites allowed with -tls, IANA names such as TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256; default: Node\'s secure defaults', {
  validate: (s) => void cipherList([s]),
});
const connTimeout = durationFlag('http.connTimeout', '2m0s', 'Incoming connections are closed after this lifetime (plus up to 10% jitter) so clients rebalance across replicas: the first response after it carries "Connection: close"; 0 disables');
const idleConnTimeout = durationFlag('http.idleConnTimeout', '1m0s', 'Idle keep-alive connections are closed after this time');
const maxGracefulShutdownDuration = durationFlag('http.maxGracefulShutdownDuration', '7s', 'Longest time to wait for in-flight requests at shutdown before closing their connections');
const shutdownDelay = durationFlag('http.shutdownDelay', '0s', 'Delay between SIGTERM and the start of shutdown, during which /health answers 503 so load balancers stop sending traffic');
const disableResponseCompression = boolFlag('http.disableResponseCompression', false, 'Whether to disable compression of responses (otherwise chosen by Accept-Encoding)');
const useProxyProtocol = boolFlag('httpListenAddr.useProxyProtocol', false, 'Whether incoming connections start with a PROXY protocol v1/v2 header (from a load balancer); the client address is taken from it');
const httpAuthUsername = stringFlag('httpAuth.username', '', 'Username for HTTP Basic auth of every route without an auth key of its own; empty disables Basic auth');
const httpAuthPassword = stringFlag('httpAuth.password', '', 'Password for HTTP Basic auth; see -httpAuth.username', { secret: true });
const metricsAuthKey = stringFlag('metricsAuthKey', '', 'Auth key for /metrics, passed as the authKey query arg; overrides -httpAuth.*', { secret: true });
const flagsAuthKey = stringFlag('flagsAuthKey', '', 'Auth key for /flags, passed as the authKey query arg; overrides -httpAuth.*', { secret: true });
const pprofAuthKey = stringFlag('pprofAuthKey', '', 'Auth key for /debug/pprof/*, passed as the authKey query arg; overrides -httpAuth.*', { secret: true });

/** normalizePathPrefix makes "strata/" into "/strata"; "" and "/" mean no prefix. */
export function normalizePathPrefix(s: string): string {
  const trimmed = s.replace(/\/+$/, '');
  if (trimmed === '') return '';
  if (/[?#\s]/.test(trimmed)) throw new Error(`path prefix "${s}" must not contain "?", "#" or spaces`);
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/** setDefaultListenAddr sets this binary's default -httpListenAddr (before flag parsing). */
export function setDefaultListenAddr(addr: string): void {
  defaultFlagSet.overrideDefault('httpListenAddr', addr);
}

/** shutdownDelayMs is -http.shutdownDelay. */
export function shutdownDelayMs(): number {
  return shutdownDelay.value;
}

/** enableTCP6Flag reports -enableTCP6 (for other listeners and dialers of the binary). */
export function enableTCP6Flag(): boolean {
  return enableTCP6.value;
}

/** useProxyProtocolFlag reports -httpListenAddr.useProxyProtocol (for binaries that must refuse or adapt to it). */
export function useProxyProtocolFlag(): boolean {
  return useProxyProtocol.value;
}

/** httpServerOptionsFromFlags maps the common HTTP flags to HttpServerOptions; throws FlagError on inconsistent flags. */
export function httpServerOptionsFromFlags(logger: Logger, metricsPrefix: string): HttpServerOptions {
  if (tls.value && (tlsCertFile.value === '' || tlsKeyFile.value === '')) {
    throw new FlagError('-tls needs both -tlsCertFile and -tlsKeyFile');
  }
  if (httpAuthUsername.value === '' && httpAuthPassword.value !== '') {
    throw new FlagError('-httpAuth.password is set but -httpAuth.username is empty, so Basic auth would stay disabled');
  }
  return {
    listenAddr: httpListenAddr.value,
    enableTCP6: enableTCP6.value,
    pathPrefix: pathPrefix.value,
    tls: tls.value ? { certFile: tlsCertFile.value, keyFile: tlsKeyFile.value, minVersion: tlsMinVersion.value, cipherSuites: tlsCipherSuites.value } : undefined,
    connTimeoutMs: connTimeout.value,
    idleConnTimeoutMs: idleConnTimeout.value,
    maxGracefulShutdownMs: maxGracefulShutdownDuration.value,
    disableResponseCompression: disableResponseCompression.value,
    useProxyProtocol: useProxyProtocol.value,
    basicAuth: httpAuthUsername.value === '' ? undefined : { username: httpAuthUsername.value, password: httpAuthPassword.value },
    metricsAuthKey: metricsAuthKey.value,
    flagsAuthKey: flagsAuthKey.value,
    pprofAuthKey: pprofAuthKey.value,
    flagSet: defaultFlagSet,
    logger,
    metricsPrefix,
  };
}
