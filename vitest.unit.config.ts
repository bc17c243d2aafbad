// Plain Node tests: the pure code in shared/, worker/llm, worker/auth, durable-objects, the Node-side test support
// (scripted model server) and scripts/. The app's tests run in vitest.app.config.ts.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['shared/**/*.test.ts', 'test/support/**/*.test.ts', 'worker/llm/**/*.test.ts', 'worker/auth/**/*.test.ts', 'durable-objects/**/*.test.ts', 'scripts/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
  },
});
