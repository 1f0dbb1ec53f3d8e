import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLAGS_CHECK_VAR } from '../../src/lib/process/index.ts';
import { runProcess } from '../e2e/process-harness.ts';
import { processArgv, renderedContainers, repoScript, ROOT } from './rendered.ts';

// Every container the operator renders (fixtures, docs examples, the Helm chart) runs its command
// line through its own binary's flag parser: the binary is started from the repository with
// STRATA_FLAGS_CHECK=1, so it imports all its modules (each registers its flags), parses the
// command line as in production and exits before serving. An unknown flag, a bad value or a
// missing required flag exits 2 and fails here, as it would crash-loop the Pod.
interface Case {
  readonly script: string;
  readonly args: readonly string[];
  readonly sources: string[];
}

const cases = new Map<string, Case>();
for (const rc of renderedContainers()) {
  const argv = processArgv(rc);
  const script = repoScript(argv);
  if (script === undefined) throw new Error(`${rc.source} container "${rc.container.name}" runs ${JSON.stringify(argv)}, not a node script under /app`);
  const key = JSON.stringify(argv);
  const c = cases.get(key) ?? { script, args: argv.slice(2), sources: [] };
  c.sources.push(`${rc.source} (${rc.container.name})`);
  cases.set(key, c);
}

/** flagNames are the flags a command line names, without dashes or values ("-a=1" is "a"). */
function flagNames(args: readonly string[]): string[] {
  return args.filter((a) => /^--?[^-\d]/.test(a)).map((a) => a.replace(/^--?/, '').replace(/=[\s\S]*$/, ''));
}

describe('rendered containers against their binaries\' flag parsers', () => {
  it('covers every binary the operator starts', () => {
    const scripts = new Set([...cases.values()].map((c) => c.script));
    expect([...scripts].sort()).toEqual(['src/cmd/authproxy.ts', 'src/cmd/backupmanager.ts', 'src/cmd/gateway.ts', 'src/cmd/operator.ts', 'src/cmd/tsdb-insert.ts', 'src/cmd/tsdb-select.ts', 'src/cmd/tsdb-storage.ts', 'src/cmd/tsdb.ts']);
  });

  it.concurrent.each([...cases.values()].map((c) => [`${c.script} ${c.args.join(' ')}`, c] as const))('%s', async (_name, c) => {
    const where = `rendered by ${c.sources.join(', ')}`;
    expect(existsSync(join(ROOT, c.script)), `${c.script} does not exist in the repository; ${where}`).toBe(true);
    const r = await runProcess(c.script, c.args, { [FLAGS_CHECK_VAR]: '1' });
    expect(r.code, `${c.script} rejected its command line (${where}):\n${r.output}`).toBe(0);
    const accepted = JSON.parse(r.output.trim().split('\n').at(-1)!) as { flags: Record<string, string>; positionals: string[] };
    // Every flag on the command line was taken by the parser as given (none ignored as a positional).
    expect(Object.keys(accepted.flags).sort()).toEqual([...new Set(flagNames(c.args))].sort());
    expect(accepted.positionals).toEqual(c.args.filter((a) => !a.startsWith('-')));
  }, 120_000);
});
