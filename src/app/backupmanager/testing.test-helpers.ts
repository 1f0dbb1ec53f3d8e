// Helpers shared by the backup manager's unit tests.

import { createLogger, type Logger } from '../../lib/logger/index.ts';

/** CapturedLogger is a logger whose lines (default format, no timestamps) tests can read. */
export interface CapturedLogger {
  readonly logger: Logger;
  readonly lines: string[];
  /** messages returns the message column of every line. */
  messages(): string[];
  stop(): void;
}

/** captureLogger builds a logger writing into an array. */
export function captureLogger(): CapturedLogger {
  const lines: string[] = [];
  const { logger, stop } = createLogger({
    format: 'default', level: 'INFO', jsonFields: {}, timezone: 'UTC', disableTimestamps: true,
    errorsPerSecondLimit: 0, warnsPerSecondLimit: 0, write: (l) => lines.push(l),
  });
  return {
    logger,
    lines,
    messages: () => lines.map((l) => l.split('\t').slice(2).join('\t').trimEnd()),
    stop,
  };
}
