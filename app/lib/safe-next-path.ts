/**
 * The one check for the `next` (login) and `source` (workbench) parameters: a path on this site,
 * or the fallback. Used by api.ts (loginHref, the login page) and ai-target.ts.
 *
 * A prefix test is not enough: browsers drop tabs and newlines anywhere in a URL and read `\` as
 * `/` (WHATWG URL standard), so `/\t/evil.com` or `/\evil.com` leave the site. The value is
 * resolved with URL against a fixed origin and kept only if it stays there; anything with
 * whitespace, control characters or backslashes (raw or percent-encoded, at any depth of
 * encoding) in its path is refused outright, since no page of the app has them.
 */
const HERE = 'https://this-app.invalid';
const MAX_DECODES = 3;
const UNSAFE = /[\s\u0000-\u001f\u007f\\]/;

function unsafePath(pathname: string): boolean {
  let path = pathname;
  for (let i = 0; i <= MAX_DECODES; i++) {
    if (UNSAFE.test(path) || path.startsWith('//')) return true;
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      return true;
    }
    if (decoded === path) return false;
    path = decoded;
  }
  // Still changing after several decodes: nothing the app links to looks like that.
  return true;
}

export function safeNextPath(value: string | null | undefined, fallback = '/projects'): string {
  if (!value || !value.startsWith('/') || UNSAFE.test(value)) return fallback;
  let url: URL;
  try {
    url = new URL(value, HERE);
  } catch {
    return fallback;
  }
  if (url.origin !== HERE || unsafePath(url.pathname)) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}
