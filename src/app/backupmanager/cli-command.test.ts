import { describe, expect, it } from 'vitest';
import { CliUsageError, parseCliCommand, type CliCommand } from './cli-command.ts';

describe('parseCliCommand', () => {
  it('parses the commands of the CLI table', () => {
    const f = (args: string[], want: CliCommand) => expect(parseCliCommand(args)).toEqual(want);
    f(['backup', 'list'], { kind: 'backup-list' });
    f(['backup', 'lock', 'daily/2024-01-31'], { kind: 'backup-lock', name: 'daily/2024-01-31', locked: true });
    f(['backup', 'unlock', 'hourly/2024-01-31:05'], { kind: 'backup-lock', name: 'hourly/2024-01-31:05', locked: false });
    f(['restore', 'create', 'daily/2024-01-31'], { kind: 'restore-create', backup: 'daily/2024-01-31' });
    f(['restore', 'create', 's3://bucket/node-0/latest'], { kind: 'restore-create', backup: 's3://bucket/node-0/latest' });
    f(['restore', 'get'], { kind: 'restore-get' });
    f(['restore', 'delete'], { kind: 'restore-delete' });
    f(['restore'], { kind: 'restore' });
  });

  it('rejects anything else with a usage error naming what was expected', () => {
    const f = (args: string[], want: RegExp) => {
      expect(() => parseCliCommand(args)).toThrow(CliUsageError);
      expect(() => parseCliCommand(args)).toThrow(want);
    };
    f(['backup'], /unknown command "backup"; use backup list/);
    f(['backup', 'delete', 'x'], /unknown command "backup delete x"/);
    f(['backup', 'list', 'extra'], /expected "backup list"/);
    f(['backup', 'lock'], /expected "backup lock <name>"/);
    f(['backup', 'lock', ' '], /the name must not be empty/);
    f(['restore', 'create'], /expected "restore create <backup name or URL>"/);
    f(['restore', 'get', 'x'], /expected "restore get"/);
    f(['restore', 'now'], /unknown command "restore now"/);
    f(['list'], /unknown command "list"/);
  });
});
