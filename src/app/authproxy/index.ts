// The auth proxy's public surface; index.ts holds no code (threads.ts, thread-messages.ts and
// thread-main.ts import component.ts, so they form no loop with this file).
export { ConfigError } from './config-error.ts';
export { parseAuthConfig, type ParseOptions } from './config-parse.ts';
export type { AuthConfig, TargetUrl, UrlMapEntry, UserConfig } from './config-types.ts';
export { initAuthProxy, type AuthProxyComponent, type InitOptions, type ThreadConfig, type ThreadInit } from './component.ts';
export { authProxyFlagsFromFlags, type AuthProxyFlags } from './flags.ts';
export { AuthProxy, type AuthProxyOptions } from './proxy.ts';
export type { ReloadOutcome } from '../../lib/config/index.ts';
export type { SharedBuffers } from './state.ts';
export { ProxyThreads, threadCount, type ThreadsOptions } from './threads.ts';
