/**
 * Security headers on every response the Worker answers (the API, its errors, the socket
 * upgrade): nosniff, no referrer, a deny-all CSP with frame-ancestors 'none', a Permissions-Policy,
 * and HSTS when the request came over https. The static pages get theirs from app/static/_headers.
 */
import type { MiddlewareHandler } from 'hono';
import { apiSecurityHeaders } from '../../shared/security-headers.ts';

export function securityHeaders(): MiddlewareHandler {
  return async function addSecurityHeaders(c, next) {
    await next();
    const headers = apiSecurityHeaders(new URL(c.req.url));
    const res = c.res;
    // A response passed through from a fetch (the session object's upgrade, its refusals) has
    // immutable headers: answer a copy, keeping the body and the socket.
    const copy = new Headers(res.headers);
    for (const [name, value] of Object.entries(headers)) copy.set(name, value);
    c.res = new Response(res.body, { status: res.status, statusText: res.statusText, headers: copy, webSocket: res.webSocket });
  };
}
