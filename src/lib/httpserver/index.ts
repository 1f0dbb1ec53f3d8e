export { canShareListenPort } from './accept-group.ts';
export { checkBasicAuth, constantTimeEqual, parseBasicAuth, type BasicCredentials } from './auth.ts';
export { enableTCP6Flag, httpServerOptionsFromFlags, normalizePathPrefix, setDefaultListenAddr, shutdownDelayMs, useProxyProtocolFlag } from './flags.ts';
export { formBodiesOnly } from './form-body.ts';
export { parseListenAddr, type ListenAddress } from './listen-addr.ts';
export { aliasesOf, PrefixAliases } from './prefix-aliases.ts';
export { parseProxyHeader, type ProxyHeaderResult } from './proxy-protocol.ts';
export { HttpServer, type HttpServerOptions, type RawHandler } from './server.ts';
export { cipherList, parseTlsMinVersion, type TlsOptions } from './tls.ts';
