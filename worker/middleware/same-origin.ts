/**
 * Refuse state-changing requests sent by another site. Browsers always send `Origin` on such
 * requests; a foreign one (or `Sec-Fetch-Site: cross-site`) is refused. Requests without
 * either header (curl, server-to-server) carry no ambient cookie risk and pass.
 */
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../../shared/api-error.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function sameOrigin(): MiddlewareHandler {
  return async function sameOriginGuard(c, next) {
    if (!SAFE_METHODS.has(c.req.method)) {
      const origin = c.req.header('origin');
      const own = new URL(c.req.url).origin;
      const crossSite = c.req.header('sec-fetch-site') === 'cross-site';
      if ((origin !== undefined && origin !== own) || crossSite) {
        throw new ApiError('FORBIDDEN_ORIGIN', {
          hints: ['Open the Builder at its own address and try again.'],
        });
      }
    }
    await next();
  };
}
