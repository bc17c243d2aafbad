import { portableSegment } from '../bmad/portable-names.ts';

/**
 * A file name in any script that is safe to put in a header and to save under: control and format
 * characters (CR, LF, bidi overrides), quotes, backslashes and slashes, and the other characters
 * Windows refuses in a file name become a space; spaces collapse, a space before the extension goes,
 * and leading or trailing dots and spaces are trimmed (no `..`, no hidden file); a Windows device
 * name (`CON.bmad`) gets the package export's portable form (shared/bmad/portable-names.ts). Empty
 * when nothing is left. The Worker names its downloads with it (worker/http/attachment.ts) and the app
 * saves them under it (app/lib/api.ts).
 */
export function safeFileName(name: string): string {
  const cleaned = name
    .replace(/[\p{Cc}\p{Cf}"\\/:*?<>|]+/gu, ' ')
    .replace(/\s+/gu, ' ')
    .replace(/ (\.[^. ]+)$/u, '$1')
    .replace(/^[\s.]+|[\s.]+$/gu, '');
  return cleaned && portableSegment(cleaned);
}
