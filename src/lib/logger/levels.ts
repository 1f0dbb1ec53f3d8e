/** LOG_LEVELS are the level names of -loggerLevel, lowest first, with their pino numbers. */
export const LOG_LEVELS = ['INFO', 'WARN', 'ERROR', 'FATAL', 'PANIC'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** PINO_LEVEL maps our names to pino level labels; "panic" is a custom pino level above fatal. */
export const PINO_LEVEL: Readonly<Record<LogLevel, string>> = {
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
  FATAL: 'fatal',
  PANIC: 'panic',
};

export const PANIC_LEVEL_VALUE = 70;
export const WARN_LEVEL_VALUE = 40;
export const ERROR_LEVEL_VALUE = 50;
