// Tests that run inside workerd: the real Worker, real D1 with the real migrations, the real
// session Durable Object and real WebSockets (@cloudflare/vitest-plugin, wrangler.toml).
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [
    cloudflareTest(async () => ({
      wrangler: { configPath: './wrangler.toml' },
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: await readD1Migrations('./migrations'),
          LLM_KEY_ENCRYPTION_KEY: 'dGVzdC1rZXktZW5jcnlwdGlvbi1rZXktMzItYnl0ZXM=',
        },
      },
    })),
  ],
  test: {
    include: ['test/workers/**/*.test.ts', 'worker/**/*.integration.test.ts', 'durable-objects/**/*.test.ts'],
    setupFiles: ['./test/workers/apply-migrations.ts'],
    testTimeout: 30_000,
  },
});
