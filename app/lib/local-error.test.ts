import { afterEach, describe, expect, it } from 'vitest';
import { useLocale } from './i18n/i18n.svelte.ts';
import { unreachableError } from './local-error.ts';

describe('localError', () => {
  afterEach(() => useLocale('en'));

  it('reads its words in the language shown now, not the one it was made in', async () => {
    await useLocale('en');
    const error = unreachableError();
    const english = error.message;
    await useLocale('zh');
    expect(error.message).not.toBe(english);
    expect(error.message).toMatch(/[\u4e00-\u9fff]/u);
    expect(error.hints?.[0]).toMatch(/[\u4e00-\u9fff]/u);
    expect(error.code).toBe('INTERNAL_ERROR');
  });
});
