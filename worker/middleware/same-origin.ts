/**
 * Refuse state-changing requests a page did not send through the app's own code. Browsers always
 * send `Origin` on such requests; a foreign one (or `Sec-Fetch-Site: cross-site`) is refused.
 * A form submission is refused even from our own origin, whatever markup made it: the app never
 * submits a form natively (it sends JSON or, to import, a file through fetch), so a request that
 * is a navigation (`Sec-Fetch-Mode: navigate`) or carries a form's encoding (browsers without fetch
 * metadata) came from markup someone planted, e.g. in a comment, and a reader's click must not
 * change anything. Requests without these headers (curl, server-to-server) carry no ambient
 * cookie risk and pass.
 */
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../../shared/api-error.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The encodings an HTML form can send (`enctype`). */
const FORM_TYPES = ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data'];
/** The routes that take a file upload (multipart/form-data), sent by the app through fetch. */
const UPLOAD_PATH = /^\/api\/projects\/import(?:\/preview)?$/;

function formEncoded(contentType: string | undefined, path: string): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (!FORM_TYPES.includes(type)) return false;
  return !(type === 'multipart/form-data' && UPLOAD_PATH.test(path));
}

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
      if (c.req.header('sec-fetch-mode') === 'navigate' || formEncoded(c.req.header('content-type'), c.req.path)) {
        throw new ApiError('FORBIDDEN_FORM_POST');
      }
    }
    await next();
  };
}
