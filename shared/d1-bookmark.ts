/**
 * The D1 Sessions API bookmark the Worker answers in a header and the app sends back on its next
 * request, so a user's reads come from a replica at least as new as their own last write.
 */
export const D1_BOOKMARK_HEADER = 'x-d1-bookmark';

/** D1's own form (hex groups), or the instrumented wrapper's `lag:<n>` (worker/db/instrumented-d1.ts). */
const BOOKMARK = /^(?:[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}|lag:\d{1,15})$/;

/** The bookmark a request carries, or null when it carries none or something else. */
export function parseBookmark(value: string | null | undefined): string | null {
  return value && value.length <= 128 && BOOKMARK.test(value) ? value : null;
}
