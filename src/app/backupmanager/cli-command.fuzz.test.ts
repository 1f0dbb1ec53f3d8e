import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CliUsageError, parseCliCommand } from './cli-command.ts';

describe('parseCliCommand (fuzz)', () => {
  it('returns a command or throws CliUsageError', () => {
    const word = fc.oneof(fc.constantFrom('backup', 'restore', 'list', 'lock', 'unlock', 'create', 'get', 'delete', '', ' '), fc.string({ maxLength: 12 }));
    fc.assert(
      fc.property(fc.array(word, { maxLength: 5 }), (args) => {
        try {
          const cmd = parseCliCommand(args);
          expect(['backup-list', 'backup-lock', 'restore-create', 'restore-get', 'restore-delete', 'restore']).toContain(cmd.kind);
        } catch (err) {
          expect(err).toBeInstanceOf(CliUsageError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
