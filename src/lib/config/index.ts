export { ConfigReloader, type ReloaderOptions, type ReloadMetrics, type ReloadOutcome } from './reloader.ts';
export { readConfigText, redactUrl } from './source.ts';
