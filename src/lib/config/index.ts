export { ConfigReloader, type ReloaderOptions, type ReloadMetrics } from './reloader.ts';
export { readConfigText, redactUrl } from './source.ts';
