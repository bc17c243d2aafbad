/**
 * The security headers every response carries: one table for the Worker's middleware (API and
 * socket upgrade) and for app/static/_headers (the static pages, which the assets layer serves
 * without running the Worker; shared/security-headers.test.ts keeps that file in step).
 */

/**
 * Features the Builder never uses, switched off for the page and anything it could embed.
 * Only names Chromium and Firefox know: an unknown name makes Chromium log a console error.
 */
const PERMISSIONS_POLICY = [
  'accelerometer=()',
  'camera=()',
  'display-capture=()',
  'geolocation=()',
  'gyroscope=()',
  'magnetometer=()',
  'microphone=()',
  'payment=()',
  'usb=()',
].join(', ');

/** Headers common to pages and API responses. */
export const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  // The Builder's addresses name projects and sessions; no other site needs them. Same-origin
  // writes go through fetch(), whose Origin header this policy leaves intact (sameOrigin()).
  'Referrer-Policy': 'no-referrer',
  'Permissions-Policy': PERMISSIONS_POLICY,
  // Never shared with a window another site opened (tab-nabbing, XS-Leaks).
  'Cross-Origin-Opener-Policy': 'same-origin',
} as const;

/**
 * The header part of the pages' Content-Security-Policy. The rest of the page policy (script
 * hashes, style-src, connect-src…) is in svelte.config.js (kit.csp) and reaches the page as a
 * <meta> tag; browsers ignore frame-ancestors there, so it is a header. Two policies are both
 * enforced, so this one only adds.
 */
export const PAGE_CSP = "frame-ancestors 'none'";

/** An API response is data, never a document: nothing may load from it or frame it. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * Two years, subdomains included, as the HSTS preload list asks. Browsers ignore the header over
 * plain http (RFC 6797 §8.1); the Worker sends it only on https requests.
 */
export const HSTS = 'max-age=63072000; includeSubDomains';

/** The headers of an API or socket response, for a request to `url`. */
export function apiSecurityHeaders(url: URL): Record<string, string> {
  const headers: Record<string, string> = { ...SECURITY_HEADERS, 'Content-Security-Policy': API_CSP };
  if (url.protocol === 'https:') headers['Strict-Transport-Security'] = HSTS;
  return headers;
}

/**
 * The text of app/static/_headers (Cloudflare's format: a path pattern, then indented
 * `Name: value` lines). Pages are served over https in production; on local http the browser
 * ignores Strict-Transport-Security, so the static file can carry it unconditionally.
 */
export function renderHeadersFile(): string {
  const page: Record<string, string> = {
    ...SECURITY_HEADERS,
    'Content-Security-Policy': PAGE_CSP,
    'Strict-Transport-Security': HSTS,
  };
  const lines = Object.entries(page).map(([name, value]) => `  ${name}: ${value}`);
  return [
    '# Generated from shared/security-headers.ts (renderHeadersFile); shared/security-headers.test.ts checks it.',
    '/*',
    ...lines,
    '',
  ].join('\n');
}
