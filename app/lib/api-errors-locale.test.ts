/**
 * An API error already on the page follows a language switch: its words come from its code in the
 * language now shown, the server's own words only in the language it came in (or for a code the
 * app has no words for).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../shared/errors.ts';
import { errorText } from '../../shared/i18n/error-text.ts';
import { createApi, type FetchLike } from './api.ts';
import { apiErrorMessage } from './api-errors.ts';
import { loadErrorWords } from './error-words.svelte.ts';
import { useLocale } from './i18n/i18n.svelte.ts';

afterEach(() => useLocale('en'));

/** A fetch that answers every request with this error envelope and status. */
function answering(error: Record<string, unknown>, status: number): FetchLike {
  return async () => new Response(JSON.stringify({ data: null, error }), { status, headers: { 'content-type': 'application/json' } });
}

describe('an API error after a language switch', () => {
  it('re-words an error that came in English in Chinese, and shows the server’s words again back in English', async () => {
    await useLocale('en');
    const precise = 'Saved meanwhile by Ana at revision 7.';
    const api = createApi(answering({ code: 'REVISION_CONFLICT', message: precise, currentRevision: 7 }, 409));
    const result = await api.projects.get('p1');
    if (result.ok) throw new Error('expected a failure');
    expect(result.error.message).toBe(precise);

    await useLocale('zh');
    // The words of every code load the first time an error is read in another language than it came in.
    void result.error.message;
    await loadErrorWords();
    expect(result.error.message).toBe(errorText('REVISION_CONFLICT', 'zh').message);
    expect(result.error.hints).toEqual([errorText('REVISION_CONFLICT', 'zh').hint]);
    expect(apiErrorMessage(result.error)).toContain(errorText('REVISION_CONFLICT', 'zh').message);
    expect(result.error.currentRevision).toBe(7);

    await useLocale('en');
    expect(result.error.message).toBe(precise);
  });

  it('re-words an error that came in Chinese in English, with the wait a 429 carries', async () => {
    await useLocale('zh');
    const api = createApi(answering({ code: 'RATE_LIMITED', message: '尝试次数过多，请在 30 秒后再试。', hints: ['请等待'], retryAfterSeconds: 30 }, 429));
    const result = await api.auth.me();
    const other = await createApi(answering({ code: 'PROJECT_NOT_FOUND', message: errorText('PROJECT_NOT_FOUND', 'zh').message }, 404)).projects.get('p');
    if (result.ok || other.ok) throw new Error('expected failures');
    expect(result.error.message).toMatch(/\p{Script=Han}/u);

    await useLocale('en');
    await loadErrorWords();
    expect(result.error.message).toBe('Too many attempts. Try again in 30 seconds.');
    expect(result.error.hints).toEqual([errorText('RATE_LIMITED', 'en').hint]);

    expect(other.error.message).toBe(ERROR_CODES.PROJECT_NOT_FOUND.message);
  });

  it('keeps the server’s words for a code it has no words for', async () => {
    await useLocale('en');
    const result = await createApi(answering({ code: 'SOMETHING_NEW', message: 'A new kind of problem.' }, 400)).projects.get('p');
    if (result.ok) throw new Error('expected a failure');
    await useLocale('zh');
    expect(result.error.message).toBe('A new kind of problem.');
  });
});
