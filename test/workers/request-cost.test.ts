/**
 * The Worker's own work per request (issue 19): a JSON body is parsed once, and the security
 * headers go onto the answer the route built instead of a copy of it (a copy only when the
 * answer's headers are immutable, and then with every header still set).
 */
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { jsonBody, optionalJsonBody } from '../../worker/http/validate.ts';
import { securityHeaders } from '../../worker/middleware/security-headers.ts';
import { API_CSP } from '../../shared/security-headers.ts';

afterEach(() => vi.restoreAllMocks());

const Input = z.strictObject({ body: z.string() });

function parsesOf(text: string, parse: { mock: { calls: unknown[][] } }): number {
  return parse.mock.calls.filter(([argument]) => argument === text).length;
}

describe('a JSON body', () => {
  it('is parsed once on its way to the handler (jsonBody)', async () => {
    const app = new Hono().post('/', jsonBody(Input), (c) => c.json(c.req.valid('json')));
    const text = JSON.stringify({ body: 'parsed once' });
    const parse = vi.spyOn(JSON, 'parse');
    const res = await app.request('/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    expect(await res.json()).toEqual({ body: 'parsed once' });
    expect(parsesOf(text, parse)).toBe(1);
  });

  it('is parsed once on its way to the handler (optionalJsonBody)', async () => {
    const app = new Hono().post('/', optionalJsonBody(Input.partial()), (c) => c.json(c.req.valid('json')));
    const text = JSON.stringify({ body: 'optional, parsed once' });
    const parse = vi.spyOn(JSON, 'parse');
    const res = await app.request('/', { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(text.length) }, body: text });
    expect(await res.json()).toEqual({ body: 'optional, parsed once' });
    expect(parsesOf(text, parse)).toBe(1);
  });
});

describe('security headers', () => {
  it('go onto the response the route built, not a copy of it', async () => {
    let built: Response | undefined;
    const app = new Hono().use(securityHeaders()).get('/', (c) => (built = c.json({ ok: true })));
    const res = await app.request('https://builder.example/');
    expect(res).toBe(built);
    expect(res.headers.get('Content-Security-Policy')).toBe(API_CSP);
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(res.headers.get('Strict-Transport-Security')).toMatch(/^max-age=/);
  });

  it('still reach an answer whose headers are immutable, on a copy with the same status and body', async () => {
    const app = new Hono().use(securityHeaders()).get('/', () => Response.redirect('http://builder.example/elsewhere', 302));
    const res = await app.request('http://builder.example/');
    expect(res.status).toBe(302);
    expect(res.headers.get('Location')).toBe('http://builder.example/elsewhere');
    expect(res.headers.get('Content-Security-Policy')).toBe(API_CSP);
    // Plain http: no HSTS (browsers ignore it there).
    expect(res.headers.get('Strict-Transport-Security')).toBeNull();
  });
});
