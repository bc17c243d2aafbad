import { afterEach, describe, expect, it } from 'vitest';
import { fieldErrors } from './api-errors.ts';
import { useLocale } from './i18n/i18n.svelte.ts';

afterEach(() => useLocale('en'));

describe('fieldErrors from the zod bounds the Worker sends', () => {
  const body = {
    code: 'VALIDATION_FAILED' as const,
    message: '部分字段缺失或取值错误。',
    details: [
      { path: 'domainProfile.painPoints', message: 'Too big: expected string to have <=2000 characters', code: 'too_big', maximum: 2000, origin: 'string' },
      { path: 'password', message: 'Use at least 10 characters.', code: 'too_small', minimum: 10, origin: 'string' },
      { path: 'email', message: 'Enter a valid email address.', code: 'invalid_format', format: 'email' },
      { path: 'tries', message: 'Too big: expected number to be <=5', code: 'too_big', maximum: 5, origin: 'number' },
    ],
  };

  it('words each field’s problem for a Chinese reader with its limit or format', async () => {
    await useLocale('zh');
    expect(fieldErrors(body)).toEqual({
      painPoints: '最多 2000 个字符。',
      password: '至少需要 10 个字符。',
      email: '请输入有效的邮箱地址。',
      tries: expect.stringContaining('5'),
    });
  });
});
