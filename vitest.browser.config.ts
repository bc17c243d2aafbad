// Browser tests: Node-side vitest driving Debian's Chromium (playwright-core) against the real
// Worker under `wrangler dev --local` (test/browser/harness.ts). Not vitest's browser mode.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    environment: 'node',
    // Each file starts its own Worker; running them one at a time keeps the SPA build and the
    // machine's CPU from being fought over.
    fileParallelism: false,
    testTimeout: 60_000,
    // Starting the product may build the SPA and compile the Worker.
    hookTimeout: 180_000,
    teardownTimeout: 30_000,
  },
});
