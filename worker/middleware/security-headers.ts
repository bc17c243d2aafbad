/**
 * Security headers on every response the Worker answers (the API, its errors, the socket
 * upgrade): nosniff, no referrer, a deny-all CSP with frame-ancestors 'none', a Permissions-Policy,
 * and HSTS when the request came over https. The static pages get theirs from app/static/_headers.
 */
import type { MiddlewareHandler } from 'hono';
import { apiSecurityHeaders } from '../../shared/security-headers.ts';

// Built once per isolate (issue 19): the table never changes, only whether HSTS goes with it.
const OVER_HTTPS = Object.entries(apiSecurityHeaders(new URL('https://builder.invalid/')));
const OVER_HTTP = Object.entries(apiSecurityHeaders(new URL('http://builder.invalid/')));

export function securityHeaders(): MiddlewareHandler {
  return async function addSecurityHeaders(c, next) {
    await next();
    const headers = c.req.url.startsWith('https:') ? OVER_HTTPS : OVER_HTTP;
    const res = c.res;
    try {
      // The answers the Worker builds itself (nearly all) take the headers as they are.
      for (const [name, value] of headers) res.headers.set(name, value);
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      // A response passed through from a fetch (the session object's upgrade, its refusals) has
      // immutable headers: answer a copy, keeping the body and the socket.
      const copy = new Headers(res.headers);
      for (const [name, value] of headers) copy.set(name, value);
      c.res = new Response(res.body, { status: res.status, statusText: res.statusText, headers: copy, webSocket: res.webSocket });
    }
  };
}
