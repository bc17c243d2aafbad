// app/static/_headers (the static pages' headers, served by the assets layer) says what shared/security-headers.ts says.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiSecurityHeaders, renderHeadersFile } from './security-headers.ts';

describe('security headers', () => {
  it('app/static/_headers is the rendered table (regenerate it with renderHeadersFile() when the table changes)', () => {
    const file = readFileSync(new URL('../app/static/_headers', import.meta.url), 'utf8');
    expect(file).toBe(renderHeadersFile());
    // Every path, and the one directive a <meta> policy cannot carry.
    expect(file).toMatch(/^\/\*$/m);
    expect(file).toMatch(/^ {2}Content-Security-Policy: frame-ancestors 'none'$/m);
  });

  it('adds HSTS to API answers only for https requests', () => {
    expect(apiSecurityHeaders(new URL('http://localhost/api/health'))).not.toHaveProperty('Strict-Transport-Security');
    expect(apiSecurityHeaders(new URL('https://builder.example/api/health'))['Strict-Transport-Security']).toMatch(/^max-age=\d{8,}/);
  });
});
