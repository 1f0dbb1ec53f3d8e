// Prints the conformance table for humans: node test/conformance/run.ts [dir] [--failures] [--closed-windows]
// Without a dir it runs both corpora (prometheus-main and prometheus-v2.42.0).

import { formatTable, MAIN_DIR, runDirectory, V242_DIR } from './corpus.ts';

const args = process.argv.slice(2);
const showFailures = args.includes('--failures');
const closedWindows = args.includes('--closed-windows');
const dirs = args.filter((a) => !a.startsWith('--'));
for (const dir of dirs.length > 0 ? dirs : [MAIN_DIR, V242_DIR]) {
  const reports = await runDirectory(dir, { closedWindows });
  console.log(formatTable(dir, reports));
  if (showFailures) {
    for (const r of reports) for (const f of r.failures) console.log(`${r.file}:${f.line}: ${f.query}\n    ${f.message}`);
  }
  console.log();
}
