import { defineConfig } from 'vitest/config';

// Unit tests sit beside the code (src/**/x.test.ts, operator/**/x.test.ts); cross-module and
// process-level tests live in test/. Process-level tests start real servers on 127.0.0.1,
// so timeouts are generous and files run in separate forks.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'operator/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['node_modules/**', 'test/kind/**', 'test/containers/**'],
    // One real Kubernetes CRD API server per run, started in the background (test/realk8s).
    globalSetup: ['test/realk8s/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
