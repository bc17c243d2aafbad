// Builds the SvelteKit single-page app from app/ into build/, which the Worker serves as static
// assets (wrangler.toml: not_found_handling = "single-page-application", /api/* to the Worker).
// SvelteKit 3 takes its configuration here, through the plugin; a svelte.config.js is refused.
import adapter from '@sveltejs/adapter-static';
import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [
    sveltekit({
      // Every page is rendered in the browser (app/routes/+layout.ts: ssr = false); index.html
      // is the fallback for every path the Worker does not find as a file.
      adapter: adapter({ pages: 'build', assets: 'build', fallback: 'index.html' }),
      // `files.src` moves routes, app.html, the error page and hooks under app/ together.
      files: { src: 'app', assets: 'app/static' },
    }),
  ],
});
