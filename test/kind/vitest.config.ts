import { defineConfig } from 'vitest/config';

// `npm run test:kind`: the operator scenarios against a real cluster (kind), installed with the
// Helm chart. The default `vitest run` excludes test/kind; this config runs only it, serially.
export default defineConfig({
  test: {
    include: ['test/kind/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 900_000,
    reporters: ['default'],
  },
});
