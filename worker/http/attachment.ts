/**
 * The Content-Disposition of a download (RFC 6266): the file's own name in any script as
 * `filename*=UTF-8''…` (RFC 5987 percent-encoding), and an ASCII `filename="…"` for clients that
 * read only that. Both are cleaned first, so a name cannot break the header or the path it is saved
 * at: control characters (CR, LF), quotes, backslashes and slashes, and the other characters Windows
 * refuses in a file name, are dropped (shared/text/file-name.ts, the rule the app saves under too).
 */
import { safeFileName } from '../../shared/text/file-name.ts';

/** RFC 5987 `value-chars`: UTF-8, percent-encoded except the attr-chars (encodeURIComponent leaves `'()*` and `!` bare; `'()*` are not attr-chars). */
const rfc5987 = (value: string) => encodeURIComponent(value).replace(/['()*]/gu, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * `attachment; filename="<ascii>"; filename*=UTF-8''<name>`. `asciiFallback` is used when `name`
 * cleans to nothing; any non-ASCII left in the fallback becomes `_`.
 */
export function attachmentDisposition(name: string, asciiFallback: string): string {
  const fallback = safeFileName(asciiFallback).replace(/[^\x20-\x7e]/gu, '_') || 'download';
  const full = safeFileName(name) || fallback;
  return `attachment; filename="${fallback}"; filename*=UTF-8''${rfc5987(full)}`;
}
