// Tells the workers types what `env` and the main module are, for `cloudflare:workers` imports
// (in the DO, and in the Workers-pool tests).
import type { Env as WorkerEnv } from './env.ts';
import type { D1Migration } from '@cloudflare/vitest-plugin';

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      /** Only in the Workers-pool tests (vitest.workers.config.ts). */
      TEST_MIGRATIONS: D1Migration[];
    }
    interface GlobalProps {
      mainModule: typeof import('./index.ts');
      durableNamespaces: 'AiSessionDurableObject';
    }
  }
}
