import { defineConfig } from 'vitest/config';

// `npm run test:images`: builds every image under images/ with buildah and starts what the
// operator renders inside them (test/containers). `bash .ci/run` runs it after the default suite,
// which excludes test/containers: a cold run builds a Debian base image first (minutes, as root).
export default defineConfig({
  test: {
    include: ['test/containers/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 3_600_000,
    reporters: ['default'],
  },
});
