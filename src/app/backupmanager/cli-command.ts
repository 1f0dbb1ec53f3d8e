// The CLI of the backup manager binary (SPEC C, CLI table): subcommands given as positional
// arguments after the flags, e.g. `backupmanager -apiURL=http://host:8300 backup lock daily/2024-01-31`.

/** CliCommand is one parsed subcommand. */
export type CliCommand =
  | { readonly kind: 'backup-list' }
  | { readonly kind: 'backup-lock'; readonly name: string; readonly locked: boolean }
  | { readonly kind: 'restore-create'; readonly backup: string }
  | { readonly kind: 'restore-get' }
  | { readonly kind: 'restore-delete' }
  | { readonly kind: 'restore' };

/** CLI_USAGE lists the subcommands, for usage errors and -help readers. */
export const CLI_USAGE = [
  'commands (without one, the backup manager serves its API and runs scheduled backups):',
  '  backup list                    print the backups in -dst as JSON (calls -apiURL)',
  '  backup lock <name>             protect a backup from retention (calls -apiURL)',
  '  backup unlock <name>           let retention delete it again (calls -apiURL)',
  '  restore create <name or URL>   mark a backup for restore (calls -apiURL)',
  '  restore get                    print the restore mark as JSON, if there is one (calls -apiURL)',
  '  restore delete                 delete the restore mark, if there is one (calls -apiURL)',
  '  restore                        restore the marked backup into -storageDataPath (the storage must be stopped); exits 0 when nothing is marked',
].join('\n');

/** CliUsageError reports positional arguments that are not a known command. */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

/** parseCliCommand parses the positional arguments; it throws CliUsageError for anything unknown. */
export function parseCliCommand(args: readonly string[]): CliCommand {
  const [group, verb, arg] = args;
  const want = (n: number, usage: string): void => {
    if (args.length !== n) throw new CliUsageError(`"${args.join(' ')}": expected "${usage}"`);
  };
  const named = (usage: string): string => {
    want(3, usage);
    if (arg === undefined || arg.trim() === '') throw new CliUsageError(`"${args.join(' ')}": the name must not be empty`);
    return arg;
  };
  if (group === 'backup') {
    switch (verb) {
      case 'list': want(2, 'backup list'); return { kind: 'backup-list' };
      case 'lock': return { kind: 'backup-lock', name: named('backup lock <name>'), locked: true };
      case 'unlock': return { kind: 'backup-lock', name: named('backup unlock <name>'), locked: false };
    }
    throw new CliUsageError(`unknown command "${args.join(' ')}"; use backup list, backup lock <name> or backup unlock <name>`);
  }
  if (group === 'restore') {
    switch (verb) {
      case undefined: return { kind: 'restore' };
      case 'create': return { kind: 'restore-create', backup: named('restore create <backup name or URL>') };
      case 'get': want(2, 'restore get'); return { kind: 'restore-get' };
      case 'delete': want(2, 'restore delete'); return { kind: 'restore-delete' };
    }
    throw new CliUsageError(`unknown command "${args.join(' ')}"; use restore, restore create <name>, restore get or restore delete`);
  }
  throw new CliUsageError(`unknown command "${args.join(' ')}"; use backup list|lock|unlock or restore [create|get|delete]`);
}
