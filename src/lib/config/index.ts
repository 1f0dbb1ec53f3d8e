export { ConfigReloader, type ReloaderOptions, type ReloadMetrics, type ReloadOutcome } from './reloader.ts';
export { readConfigText } from './source.ts';
// redactUrl lives in lib/logger (one implementation); re-exported for the config readers' callers.
export { redactUrl } from '../logger/index.ts';
