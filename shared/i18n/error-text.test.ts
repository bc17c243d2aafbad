import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../errors.ts';
import { errorText, localiseErrorBody } from './error-text.ts';
import { LOCALES } from './locales.ts';

const codes = Object.keys(ERROR_CODES) as ErrorCode[];
const hasHan = (text: string) => /\p{Script=Han}/u.test(text);

describe('error texts', () => {
  it('give every code a message and a hint in every language', () => {
    for (const locale of LOCALES) {
      for (const code of codes) {
        const text = errorText(code, locale);
        expect(text.message.trim(), `${locale} ${code}`).not.toBe('');
        expect(text.hint.trim(), `${locale} ${code}`).not.toBe('');
      }
    }
  });

  it('write the Chinese ones in Chinese', () => {
    for (const code of codes) expect(hasHan(errorText(code, 'zh').message), code).toBe(true);
  });

  it('keep the code and extra fields, and only change the words', () => {
    const body = { code: 'REVISION_CONFLICT' as const, message: 'Saved meanwhile by Ana.', currentRevision: 7, details: [{ message: 'x' }] };
    const zh = localiseErrorBody(body, 'zh');
    expect(zh).toMatchObject({ code: 'REVISION_CONFLICT', currentRevision: 7, details: [{ message: 'x' }] });
    expect(zh.message).toBe(errorText('REVISION_CONFLICT', 'zh').message);
    expect(zh.hints).toEqual([errorText('REVISION_CONFLICT', 'zh').hint]);
    expect(localiseErrorBody(body, 'en')).toBe(body);
  });
});
