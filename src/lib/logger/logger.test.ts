import { afterEach, describe, expect, it } from 'vitest';
import { type CreatedLogger, createLogger, type LoggerOptions } from './logger.ts';

const created: CreatedLogger[] = [];
afterEach(() => created.splice(0).forEach((c) => c.stop()));

function capture(o: Partial<LoggerOptions> = {}) {
  const lines: string[] = [];
  const c = createLogger({
    format: 'default', level: 'INFO', jsonFields: {}, timezone: 'UTC', disableTimestamps: false,
    errorsPerSecondLimit: 0, warnsPerSecondLimit: 0, now: () => Date.UTC(2024, 0, 2, 3, 4, 5, 678),
    write: (l) => lines.push(l), ...o,
  });
  created.push(c);
  return { log: c.logger, lines };
}

describe('createLogger', () => {
  it('writes `<ts>\\t<level>\\t<caller>\\t<msg>` in the default format', () => {
    const { log, lines } = capture();
    log.info('started');
    expect(lines).toEqual([expect.stringMatching(/^2024-01-02T03:04:05\.678Z\tinfo\tsrc\/lib\/logger\/logger\.test\.ts:\d+\tstarted\n$/)]);
  });

  it('appends the error message and extra fields in the default format', () => {
    const { log, lines } = capture();
    log.child({ component: 'wal' }).error({ err: new Error('disk full') }, 'cannot write');
    expect(lines[0]).toMatch(/\terror\t.*\tcannot write: disk full \{"component":"wal"\}\n$/);
  });

  it('does not repeat an error message the text already carries', () => {
    const { log, lines } = capture();
    log.error({ err: new Error('disk full') }, 'cannot write part "x": disk full');
    expect(lines[0]).toMatch(/\tcannot write part "x": disk full\n$/);
  });

  it('writes JSON with renamed fields', () => {
    const { log, lines } = capture({ format: 'json', jsonFields: { ts: 'timestamp', msg: 'message' } });
    log.warn('slow');
    const obj = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(obj).toMatchObject({ timestamp: '2024-01-02T03:04:05.678Z', level: 'warn', message: 'slow' });
    expect(obj.caller).toMatch(/logger\.test\.ts:\d+$/);
  });

  it('drops messages below the level and keeps the custom panic level', () => {
    const { log, lines } = capture({ level: 'ERROR' });
    log.info('no');
    log.warn('no');
    log.error('yes');
    log.panic('yes too');
    expect(lines.map((l) => l.split('\t')[1])).toEqual(['error', 'panic']);
  });

  it('omits timestamps when disabled', () => {
    const { log, lines } = capture({ disableTimestamps: true });
    log.info('x');
    expect(lines[0]).toMatch(/^info\t/);
  });

  it('prints timestamps in the configured zone', () => {
    const { log, lines } = capture({ timezone: 'Asia/Kolkata' });
    log.info('x');
    expect(lines[0]).toMatch(/^2024-01-02T08:34:05\.678\+05:30\t/);
  });

  it('redacts credentials in fields and message text', () => {
    const { log, lines } = capture({ format: 'json' });
    log.info({ password: 'hunter2', req: { headers: { authorization: 'Basic abc' } } }, 'GET http://u:hunter2@h/x?authKey=k1');
    const text = lines.join('');
    expect(text).not.toMatch(/hunter2|k1|Basic abc/);
    expect(text).toContain('"password":"secret"');
    expect(text).toContain('authKey=secret');
  });

  it('caps errors per second and reports how many were suppressed', async () => {
    let t = 0;
    const { log, lines } = capture({ errorsPerSecondLimit: 2, now: () => t });
    for (let i = 0; i < 5; i++) log.error(`e${i}`);
    expect(lines.filter((l) => l.includes('\terror\t'))).toHaveLength(2);
    t = 1500;
    await new Promise((r) => setTimeout(r, 1100));
    expect(lines.some((l) => /\twarn\t.*suppressed 3 ERROR messages in the last second because of -loggerErrorsPerSecondLimit=2/.test(l))).toBe(true);
    log.error('after');
    expect(lines.at(-1)).toContain('after');
  });
});
