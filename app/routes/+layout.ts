// A single-page app: the Worker serves build/index.html for every page path and the client
// renders it (wrangler.toml: not_found_handling = "single-page-application").
export const ssr = false;
export const prerender = false;
