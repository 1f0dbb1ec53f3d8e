import { describe, expect, it } from 'vitest';
import { counter, counterFunc, gauge, registerProcessMetrics, writeMetrics } from './registry.ts';

describe('process registry', () => {
  it('renders process, version and component metrics in the text format', async () => {
    registerProcessMetrics('tsdb', { version: '1.2.3', gitSha: 'abc' });
    counter('tsdb_test_rows_total', 'rows', ['type']).inc({ type: 'influx' }, 3);
    gauge('tsdb_test_parts', 'parts', [], (g) => g.set(7));
    const text = await writeMetrics();
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'process_open_fds', 'process_start_time_seconds', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(text).toContain(`\n${name} `);
    }
    expect(text).toContain('tsdb_app_version{version="tsdb-1.2.3-abc",short_version="1.2.3"} 1');
    expect(text).toContain('tsdb_test_rows_total{type="influx"} 3');
    expect(text).toContain('tsdb_test_parts 7');
  });

  it('counts the CPU the process used before its collectors started', async () => {
    registerProcessMetrics('tsdb', { version: '1.2.3', gitSha: 'abc' });
    const text = await writeMetrics();
    const used = process.cpuUsage();
    const value = (name: string) => Number(new RegExp(`\\n${name} (\\S+)`).exec(text)?.[1]);
    // The test process loaded its modules long before: a count from the collectors' start would be near 0.
    expect(value('process_cpu_seconds_total')).toBeGreaterThan((used.user + used.system) / 1e6 * 0.5);
    expect(value('process_cpu_seconds_total')).toBeLessThanOrEqual((used.user + used.system) / 1e6);
    expect(value('process_cpu_user_seconds_total') + value('process_cpu_system_seconds_total')).toBeCloseTo(value('process_cpu_seconds_total'), 5);
  });

  it('returns the same metric when declared twice, and refuses a type change', () => {
    expect(counter('tsdb_test_twice_total', 'x')).toBe(counter('tsdb_test_twice_total', 'x'));
    expect(() => gauge('tsdb_test_twice_total', 'x')).toThrow(/already declared as a counter/);
  });
});

describe('counterFunc', () => {
  it('reports the cumulative value read at scrape time', async () => {
    let n = 5;
    counterFunc('tsdb_test_func_total', 'func', ['kind'], (set) => set({ kind: 'a' }, n));
    expect(await writeMetrics()).toContain('tsdb_test_func_total{kind="a"} 5');
    n = 9;
    expect(await writeMetrics()).toContain('tsdb_test_func_total{kind="a"} 9');
  });
});
