// SvelteKit: a single-page app built from app/ into build/, which the Worker serves as static
// assets (wrangler.toml: not_found_handling = "single-page-application"; /api/* reaches the
// Worker first). Every page renders in the browser (app/routes/+layout.ts: ssr = false).
import adapter from '@sveltejs/adapter-static';

/** @type {import('@sveltejs/kit').Config} */
const config = {
  kit: {
    // index.html answers every path that is not a file, so client-side routes survive a reload.
    adapter: adapter({ pages: 'build', assets: 'build', fallback: 'index.html' }),
    files: {
      src: 'app',
      assets: 'app/static',
      routes: 'app/routes',
      lib: 'app/lib',
      appTemplate: 'app/app.html',
      errorTemplate: 'app/error.html',
      hooks: { client: 'app/hooks.client', server: 'app/hooks.server', universal: 'app/hooks' },
      params: 'app/params',
    },
  },
};

export default config;
