// Plain Node tests: the pure code in shared/ and the Node-side test support (scripted model server).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['shared/**/*.test.ts', 'test/support/**/*.test.ts', 'worker/llm/**/*.test.ts', 'durable-objects/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
  },
});
