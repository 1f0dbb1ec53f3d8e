import { describe, expect, it } from 'vitest';
import { formatTable, MAIN_DIR, passRate, runDirectory, totals, V242_DIR } from './corpus.ts';

// The pass rates reached when these floors were set (non-skipped evals only). A drop below a
// floor is a regression; raise the floors when conformance improves.
const MIN_PASS_RATE_MAIN = 1.0;
const MIN_PASS_RATE_V242 = 0.73;
const MIN_PASS_RATE_V242_CLOSED = 0.99;

describe('PromQL conformance (Prometheus test scripts, in process)', () => {
  it('passes the prometheus-main corpus (Prometheus 3 semantics)', async () => {
    const reports = await runDirectory(MAIN_DIR);
    const t = totals(reports);
    console.log(formatTable('prometheus-main', reports));
    console.log(`skipped evals: ${t.skipped} (reasons in test/conformance/skips.ts)`);
    for (const r of reports) for (const f of r.failures) console.log(`differs from Prometheus: ${r.file}:${f.line} ${f.query}\n     ${f.message}`);
    expect(passRate(t)).toBeGreaterThanOrEqual(MIN_PASS_RATE_MAIN);
  });

  it('reports the prometheus-v2.42.0 corpus (Prometheus 2 windows and lookback differ)', async () => {
    const reports = await runDirectory(V242_DIR);
    const t = totals(reports);
    console.log(formatTable('prometheus-v2.42.0', reports));
    expect(passRate(t)).toBeGreaterThanOrEqual(MIN_PASS_RATE_V242);
  });

  it('passes the prometheus-v2.42.0 corpus with closed windows (-search.closedWindows)', async () => {
    const reports = await runDirectory(V242_DIR, { closedWindows: true });
    const t = totals(reports);
    console.log(formatTable('prometheus-v2.42.0, closedWindows', reports));
    for (const r of reports) for (const f of r.failures) console.log(`differs from Prometheus: ${r.file}:${f.line} ${f.query}\n     ${f.message}`);
    expect(passRate(t)).toBeGreaterThanOrEqual(MIN_PASS_RATE_V242_CLOSED);
  });
});
