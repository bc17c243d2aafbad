/** Client start-up: settings that must hold before any page code runs. */

// zod probes for eval with `new Function('')` on its first object parse; under the page's CSP
// (no 'unsafe-eval') the probe is refused and reported as a violation even though zod copes.
// jitless skips the probe; the parsers stay the same. zod keeps its settings on this global (so
// that every copy of zod shares them) and reads it when it loads: setting it here, before any page
// imports zod, does what `z.config({ jitless: true })` does without putting zod's core in every
// page's first load (the sign-in page never parses with zod).
const scope = globalThis as { __zod_globalConfig?: Record<string, unknown> };
(scope.__zod_globalConfig ??= {}).jitless = true;

export {};
