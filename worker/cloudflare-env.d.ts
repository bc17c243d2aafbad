// Tells the workers types what `env` and the main module are, for `cloudflare:workers` imports
// (in the DO, and in the Workers-pool tests).
import type { Env as WorkerEnv } from './env.ts';
import type { D1Migration } from '@cloudflare/vitest-plugin';

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      /** Only in the Workers-pool tests (vitest.workers.config.ts). */
      TEST_MIGRATIONS: D1Migration[];
      /** Only in the Workers-pool tests: the scripted OpenAI-compatible server (test/support/workers-global-setup.ts). */
      SCRIPTED_OPENAI_URL: string;
      /** Only in the Workers-pool tests: an http://127.0.0.1 address where nothing listens. */
      SCRIPTED_OPENAI_UNREACHABLE_URL: string;
      /** Only in the Workers-pool tests: example packages as `{path: text}` maps. */
      TEST_PACKAGES: Record<'branching' | 'two-workflows' | 'zh-review' | 'demo', Record<string, string>>;
      TEST_BMAD_METHOD: Record<'linear' | 'continuation' | 'branches' | 'module', Record<string, string>>;
    }
    interface GlobalProps {
      mainModule: typeof import('./index.ts');
      durableNamespaces: 'AiSessionDurableObject';
    }
  }
}
