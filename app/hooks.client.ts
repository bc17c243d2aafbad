/** Client start-up: settings that must hold before any page code runs. */
import { z } from 'zod';

// zod probes for eval with `new Function('')` on its first object parse; under the page's CSP
// (no 'unsafe-eval') the probe is refused and reported as a violation even though zod copes.
// jitless skips the probe; the parsers stay the same.
z.config({ jitless: true });
