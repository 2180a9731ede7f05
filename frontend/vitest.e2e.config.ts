import { defineConfig } from 'vitest/config';

// The browser end-to-end suite: a real freeact dev build serves the real
// frontend with live Go bindings, and Debian's chromium drives it.
export default defineConfig({
  test: {
    environment: 'node',
    include: ['e2e/**/*.e2e.ts'],
    // Waits are safety nets sized for a loaded machine (vitest's
    // expect.poll gives up after 1 s by default).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    expect: { poll: { timeout: 30_000 } },
    fileParallelism: false,
    pool: 'forks',
  },
});
