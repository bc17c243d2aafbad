// Tests that run inside workerd: the real Worker, real D1 with the real migrations, the real
// session Durable Object and real WebSockets (@cloudflare/vitest-plugin, wrangler.toml).
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';
import { loadFixture, loadPackageDir } from './test/fixtures/packages.ts';

export default defineConfig({
  plugins: [
    cloudflareTest(async ({ inject }) => ({
      wrangler: { configPath: './wrangler.toml' },
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: await readD1Migrations('./migrations'),
          LLM_KEY_ENCRYPTION_KEY: 'dGVzdC1rZXktZW5jcnlwdGlvbi1rZXktMzItYnl0ZXM=',
          // As under `npm start`: local models (and the scripted server on 127.0.0.1) are allowed.
          LLM_ALLOW_PRIVATE_BASE_URLS: 'true',
          // No system default model, whatever a local `npm start` wrote into the git-ignored .dev.vars
          // (wrangler reads it): the tests that want one set it themselves.
          LLM_SYSTEM_DEFAULT_BASE_URL: '',
          LLM_SYSTEM_DEFAULT_MODEL: '',
          LLM_SYSTEM_DEFAULT_API_KEY: '',
          // The D1 wrapper counts round trips (worker/db/instrumented-d1.ts), for test/workers/round-trips.test.ts.
          D1_COUNT_ROUND_TRIPS: 'true',
          // A price for the scripted server's built-in echo model, so a cost can be checked (test/workers/llm-default-and-cost.test.ts).
          LLM_PRICES_JSON: '{"scripted-echo":{"input":3,"output":15}}',
          // Started by test/support/workers-global-setup.ts.
          SCRIPTED_OPENAI_URL: inject('scriptedOpenAIUrl'),
          SCRIPTED_OPENAI_UNREACHABLE_URL: inject('unreachableOpenAIUrl'),
          // The repository's test packages (test/fixtures/packages/) as file maps: workerd cannot read the disk.
          TEST_PACKAGES: {
            branching: Object.fromEntries(loadFixture('branching')),
            'two-workflows': Object.fromEntries(loadFixture('two-workflows')),
            'zh-review': Object.fromEntries(loadPackageDir(new URL('./test/fixtures/packages/zh-review/', import.meta.url))),
            demo: Object.fromEntries(loadPackageDir(new URL('./scripts/demo-package/', import.meta.url))),
          },
          // Our BMAD-METHOD layout fixtures (test/fixtures/bmad-method/), for the importer's workers tests.
          TEST_BMAD_METHOD: Object.fromEntries(
            ['linear', 'continuation', 'branches', 'module'].map((name) => [
              name,
              Object.fromEntries(loadPackageDir(new URL(`./test/fixtures/bmad-method/${name}/`, import.meta.url))),
            ]),
          ),
        },
      },
    })),
  ],
  test: {
    include: ['test/workers/**/*.test.ts', 'worker/**/*.integration.test.ts', 'durable-objects/**/*.integration.test.ts'],
    globalSetup: ['./test/support/workers-global-setup.ts'],
    // The console recorder first: the log canary (test/workers/log-canary.ts) reads every line of a file.
    setupFiles: ['./test/workers/console-recorder.ts', './test/workers/apply-migrations.ts'],
    testTimeout: 30_000,
  },
});
