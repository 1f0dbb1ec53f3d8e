import { type CreatedLogger, createLogger, type Logger } from './logger.ts';
import { loggerOptionsFromFlags } from './flags.ts';

// The process logger. Before initLogger runs (flag parsing), it logs INFO and above in the default
// format to stderr, so startup errors are never lost.
let current: CreatedLogger = createLogger(loggerOptionsFromFlags());

/** rootLogger returns the process logger; components take `rootLogger().child({component})`. */
export function rootLogger(): Logger {
  return current.logger;
}

/** initLogger rebuilds the process logger from the parsed -logger* flags. */
export function initLogger(): Logger {
  current.stop();
  current = createLogger(loggerOptionsFromFlags());
  return current.logger;
}
