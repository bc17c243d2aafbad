// Unit tests of the web app's DOM-free code (app/**/*.test.ts, beside the files they test): the
// SvelteKit plugin compiles the runes of `.svelte.ts` state classes and resolves `$app/*`, as in
// the build. Node environment: sockets and HTTP are faked at the boundary, nothing needs a DOM.
import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [sveltekit()],
  test: {
    include: ['app/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
  },
});
