export { parseJSONFields, loggerOptionsFromFlags } from './flags.ts';
export { LOG_LEVELS, type LogLevel } from './levels.ts';
export { createLogger, formatDefaultLine, type CreatedLogger, type LogField, type Logger, type LoggerOptions } from './logger.ts';
export { redactText, redactUrl, REDACTED } from './redact.ts';
export { initLogger, rootLogger } from './root.ts';
export { checkTimezone, createTimeFormatter } from './time.ts';
export { KeyThrottle } from './key-throttle.ts';
