/**
 * The file name a download is saved under, from the Worker's Content-Disposition (app/lib/api.ts's
 * export download uses it).
 */
import { safeFileName } from '../../shared/text/file-name.ts';

/**
 * `attachment; filename="x.bmad"; filename*=UTF-8''%E5%AE%A2.bmad` → `客.bmad` (RFC 6266: the RFC 5987
 * name wins over the ASCII fallback), cleaned so it can only name a file in the download folder
 * (shared/text/file-name.ts).
 */
export function attachmentFileName(header: string | null, fallback: string): string {
  if (!header) return fallback;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (extended?.[1]) {
    try {
      const name = safeFileName(decodeURIComponent(extended[1].trim()));
      if (name) return name;
    } catch {
      // fall through to the plain form
    }
  }
  const plain = /filename\s*=\s*"?([^";]+)"?/.exec(header);
  return safeFileName(plain?.[1] ?? '') || fallback;
}
