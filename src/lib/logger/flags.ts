import { writeSync } from 'node:fs';
import { boolFlag, enumFlag, intFlag, stringFlag, valueFlag } from '../flags/index.ts';
import { LOG_LEVELS } from './levels.ts';
import type { LogField, LoggerOptions } from './logger.ts';
import { checkTimezone } from './time.ts';

const loggerFormat = enumFlag('loggerFormat', 'default', ['default', 'json'], 'Format of log lines: default is "<ts>\\t<level>\\t<caller>\\t<msg>"');
const loggerJSONFields = valueFlag('loggerJSONFields', '', 'Renames fields in -loggerFormat=json, e.g. "ts:timestamp,msg:message"; fields: ts, level, caller, msg', parseJSONFields, formatJSONFields);
const loggerLevel = enumFlag('loggerLevel', 'INFO', LOG_LEVELS, 'Minimum level of messages to log');
const loggerOutput = enumFlag('loggerOutput', 'stderr', ['stderr', 'stdout'], 'Where logs go');
const loggerTimezone = valueFlag('loggerTimezone', 'UTC', 'Time zone of log timestamps: UTC, Local or an IANA zone such as Europe/Berlin', (s) => {
  checkTimezone(s);
  return s;
}, (s) => s);
const loggerDisableTimestamps = boolFlag('loggerDisableTimestamps', false, 'Whether to leave timestamps out of log lines');
const loggerErrorsPerSecondLimit = intFlag('loggerErrorsPerSecondLimit', 0, 'Per-second cap on ERROR messages; suppressed ones are counted and reported once per second. 0 disables the cap');
const loggerWarnsPerSecondLimit = intFlag('loggerWarnsPerSecondLimit', 0, 'Per-second cap on WARN messages; suppressed ones are counted and reported once per second. 0 disables the cap');

const FIELDS: readonly LogField[] = ['ts', 'level', 'caller', 'msg'];

/** parseJSONFields parses "ts:timestamp,msg:message" into a rename map. */
export function parseJSONFields(text: string): Partial<Record<LogField, string>> {
  const out: Partial<Record<LogField, string>> = {};
  if (text.trim() === '') return out;
  for (const pair of text.split(',')) {
    const [from, to, ...extra] = pair.split(':').map((s) => s.trim());
    if (!FIELDS.includes(from as LogField) || to === undefined || to === '' || extra.length > 0) {
      throw new Error(`bad entry "${pair}": expected <field>:<new name> with field one of ${FIELDS.join(', ')}`);
    }
    out[from as LogField] = to;
  }
  return out;
}

function formatJSONFields(v: Partial<Record<LogField, string>>): string {
  return Object.entries(v).map(([k, n]) => `${k}:${n}`).join(',');
}

/** loggerOptionsFromFlags maps the -logger* flags to LoggerOptions writing synchronously to stderr/stdout. */
export function loggerOptionsFromFlags(): LoggerOptions {
  const fd = loggerOutput.value === 'stdout' ? 1 : 2;
  return {
    format: loggerFormat.value,
    level: loggerLevel.value,
    jsonFields: loggerJSONFields.value,
    timezone: loggerTimezone.value,
    disableTimestamps: loggerDisableTimestamps.value,
    errorsPerSecondLimit: loggerErrorsPerSecondLimit.value,
    warnsPerSecondLimit: loggerWarnsPerSecondLimit.value,
    write: (line) => writeLine(fd, line),
  };
}

function writeLine(fd: number, line: string): void {
  try {
    writeSync(fd, line);
  } catch {
    // A closed stderr (EPIPE) must not take the server down; the line is lost, nothing else.
  }
}
