import pino from 'pino';
import { callerLocation } from './caller.ts';
import { ERROR_LEVEL_VALUE, type LogLevel, PANIC_LEVEL_VALUE, PINO_LEVEL, WARN_LEVEL_VALUE } from './levels.ts';
import { REDACT_PATHS, REDACTED, redactText } from './redact.ts';
import { LevelThrottle } from './throttle.ts';
import { createTimeFormatter } from './time.ts';

/** Logger is the pino logger every component uses, with the extra "panic" level. */
export type Logger = pino.Logger<'panic'>;

/** LogField is a field of a log line that -loggerJSONFields may rename. */
export type LogField = 'ts' | 'level' | 'caller' | 'msg';

/** LoggerOptions configure one logger; loggerOptionsFromFlags builds them from the -logger* flags. */
export interface LoggerOptions {
  readonly format: 'default' | 'json';
  readonly level: LogLevel;
  /** jsonFields renames fields in the json format, e.g. {ts: 'timestamp'}. */
  readonly jsonFields: Readonly<Partial<Record<LogField, string>>>;
  /** timezone is "UTC", "Local" or an IANA zone. */
  readonly timezone: string;
  readonly disableTimestamps: boolean;
  /** Per-second caps on ERROR and WARN messages; 0 disables. */
  readonly errorsPerSecondLimit: number;
  readonly warnsPerSecondLimit: number;
  /** write receives each complete line, newline included. */
  readonly write: (line: string) => void;
  readonly now?: () => number;
}

/** CreatedLogger is a logger plus the function that stops its once-a-second suppression report. */
export interface CreatedLogger {
  readonly logger: Logger;
  readonly stop: () => void;
}

/** createLogger builds a pino logger writing the default tab-separated format or JSON. */
export function createLogger(o: LoggerOptions): CreatedLogger {
  const now = o.now ?? Date.now;
  const json = o.format === 'json';
  const key = (f: LogField) => (json ? (o.jsonFields[f] ?? f) : f);
  const formatTime = createTimeFormatter(o.timezone);
  const throttles = new Map<number, LevelThrottle>([
    [ERROR_LEVEL_VALUE, new LevelThrottle(o.errorsPerSecondLimit, now)],
    [WARN_LEVEL_VALUE, new LevelThrottle(o.warnsPerSecondLimit, now)],
  ]);
  const write = json ? o.write : (line: string) => o.write(formatDefaultLine(line));
  const logger = pino<'panic'>(
    {
      level: PINO_LEVEL[o.level],
      customLevels: { panic: PANIC_LEVEL_VALUE },
      base: undefined,
      messageKey: key('msg'),
      timestamp: o.disableTimestamps ? false : () => `,"${key('ts')}":"${formatTime(now())}"`,
      formatters: { level: (label) => ({ [key('level')]: label }) },
      mixin: () => ({ [key('caller')]: callerLocation() }),
      redact: { paths: [...REDACT_PATHS], censor: REDACTED },
      hooks: {
        logMethod(args, method, level) {
          if (throttles.get(level)?.allow() === false) return;
          for (let i = 0; i < args.length; i++) {
            const a: unknown = args[i];
            if (typeof a === 'string') args[i] = redactText(a);
          }
          method.apply(this, args as Parameters<typeof method>);
        },
      },
    },
    { write },
  );
  const timer = setInterval(() => reportSuppressed(logger, throttles), 1000);
  timer.unref();
  return { logger, stop: () => clearInterval(timer) };
}

function reportSuppressed(logger: Logger, throttles: ReadonlyMap<number, LevelThrottle>): void {
  for (const [level, t] of throttles) {
    const n = t.drain();
    if (n === 0) continue;
    const name = level === ERROR_LEVEL_VALUE ? 'ERROR' : 'WARN';
    const flag = level === ERROR_LEVEL_VALUE ? 'loggerErrorsPerSecondLimit' : 'loggerWarnsPerSecondLimit';
    // The report itself goes out one level lower than it counts so the throttle never swallows it.
    (level === ERROR_LEVEL_VALUE ? logger.warn : logger.info).call(logger, `suppressed ${n} ${name} messages in the last second because of -${flag}=${t.limit}`);
  }
}

/** formatDefaultLine turns one pino JSON line into `<ts>\t<level>\t<caller>\t<msg>`, extra fields appended as JSON. */
export function formatDefaultLine(jsonLine: string): string {
  const { ts, level, caller, msg, err, ...rest } = JSON.parse(jsonLine) as Record<string, unknown>;
  let text = typeof msg === 'string' ? msg : msg === undefined ? '' : JSON.stringify(msg);
  if (err !== undefined && typeof err === 'object' && err !== null) {
    const e = err as { message?: unknown };
    const detail = String(e.message ?? JSON.stringify(err));
    // Messages written as "cannot X: <cause>" already carry the error; do not repeat it.
    if (!text.includes(detail)) text += `${text === '' ? '' : ': '}${detail}`;
  }
  if (Object.keys(rest).length > 0) text += ` ${JSON.stringify(rest)}`;
  const head = ts === undefined ? '' : `${String(ts)}\t`;
  return `${head}${String(level)}\t${String(caller ?? 'unknown')}\t${text}\n`;
}
