/** The D1 bookmark echo of app/lib/api.ts: the newest bookmark the Worker answered goes with the next request. */
import { describe, expect, it } from 'vitest';
import { createApi, type FetchLike } from './api.ts';
import { D1_BOOKMARK_HEADER } from '../../shared/d1-bookmark.ts';

const NEWER = '00000000-00000007-00000000-00000000000000000000000000000000';

describe('the D1 bookmark', () => {
  it('sends back the last bookmark answered, and keeps it when an answer has none or a malformed one', async () => {
    const sent: Array<string | null> = [];
    const answers = [NEWER, null, 'not a bookmark', null];
    const fetchFn: FetchLike = async (_input, init) => {
      sent.push(new Headers(init?.headers).get(D1_BOOKMARK_HEADER));
      const bookmark = answers.shift();
      const headers = new Headers({ 'content-type': 'application/json' });
      if (bookmark) headers.set(D1_BOOKMARK_HEADER, bookmark);
      return new Response(JSON.stringify({ data: { user: { id: 'u', email: 'a@b.c', name: 'A' } }, error: null }), { status: 200, headers });
    };
    const api = createApi(fetchFn);
    for (let i = 0; i < 4; i++) expect((await api.auth.me()).ok).toBe(true);
    // The module keeps one bookmark for the tab, so the first request may carry an earlier test's.
    expect(sent.slice(1)).toEqual([NEWER, NEWER, NEWER]);
  });
});
