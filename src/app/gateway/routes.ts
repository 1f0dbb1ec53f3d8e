import type { HttpServer } from '../../lib/httpserver/index.ts';
import type { GatewayProxy } from './proxy.ts';

/**
 * registerGatewayRoutes is the gateway's route table: every path other than the built-in ones
 * (/health, /metrics, /flags, /debug/pprof/* of the HTTP server) goes to the proxy, which forwards
 * the TSDB APIs of path-policy.ts and refuses the rest. The token travels in a request header, so
 * -httpAuth.* (Basic auth of the same Authorization header) applies to the built-in routes only.
 */
export function registerGatewayRoutes(server: HttpServer, proxy: GatewayProxy): void {
  server.registerRawCatchAll(proxy.handle);
}
