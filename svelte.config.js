// SvelteKit: a single-page app built from app/ into build/, which the Worker serves as static
// assets (wrangler.toml: not_found_handling = "single-page-application"; /api/* reaches the
// Worker first). Every page renders in the browser (app/routes/+layout.ts: ssr = false).
import { createHash } from 'node:crypto';
import adapter from '@sveltejs/adapter-static';
import { caretStyles } from './app/lib/workbench/caret-styles.ts';

/**
 * The style attribute of SvelteKit's route announcer (kit's generated root.svelte). If a SvelteKit
 * update changes it, test/browser/security.browser.test.ts reports the refused style.
 */
const SVELTEKIT_ANNOUNCER_STYLE =
  'position: absolute; left: 0; top: 0; clip: rect(0 0 0 0); clip-path: inset(50%); overflow: hidden; white-space: nowrap; width: 1px; height: 1px';

/** A CSP source allowing one exact style attribute value. */
const styleHash = (style) => `sha256-${createHash('sha256').update(style).digest('base64')}`;

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
    // The page's Content-Security-Policy. SvelteKit writes it into index.html as a <meta> tag with
    // the hash of its inline bootstrap script ('hash' mode: the page is static, nonces need a
    // server). Directives a <meta> cannot carry (frame-ancestors) come as headers from
    // app/static/_headers; see worker/README.md "Security headers".
    csp: {
      mode: 'hash',
      directives: {
        'default-src': ['self'],
        'script-src': ['self'],
        'style-src': ['self'],
        // CodeMirror (style-mod) writes its theme into a <style> element it keeps updating, so it
        // has no fixed hash, and a static page has no per-response nonce. Injected CSS still
        // cannot leak anything: images, fonts and requests are same-origin only.
        'style-src-elem': ['self', 'unsafe-inline'],
        // No style attributes (Svelte Flow and our components set styles through the CSSOM, which
        // CSP allows), except exact values allowed by hash: SvelteKit's own route announcer
        // (root.svelte) and the colours of other people's carets in the shared draft (caret-styles.ts).
        'style-src-attr': ['unsafe-hashes', styleHash(SVELTEKIT_ANNOUNCER_STYLE), ...caretStyles().map(styleHash)],
        'img-src': ['self', 'data:'],
        'font-src': ['self'],
        // The API and the session socket are same-origin; CSP3 browsers match ws(s): of the own
        // host under 'self' (the browser test checks the live workbench connects).
        'connect-src': ['self'],
        'object-src': ['none'],
        'base-uri': ['none'],
        // The app never submits a form natively (every form's submit is handled in script), so no
        // form may send the page anywhere: markup planted in a comment or a file cannot post.
        'form-action': ['none'],
        'worker-src': ['self'],
        'manifest-src': ['self'],
      },
    },
  },
};

export default config;
