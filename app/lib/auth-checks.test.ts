import { afterEach, describe, expect, it } from 'vitest';
import { LoginInput, RegisterInput } from '../../shared/api/auth.ts';
import { checkLogin, checkRegister } from './auth-checks.ts';
import { issuesByField } from './forms.ts';
import { useLocale } from './i18n/i18n.svelte.ts';

afterEach(() => useLocale('en'));

const long = (n: number) => 'x'.repeat(n);
const EMAILS = [
  'ada@example.com',
  '  Ada.Lovelace@Example.COM ',
  'not-an-email',
  '',
  '   ',
  'a@b',
  'a@b.c',
  '.a@example.com',
  'a..b@example.com',
  'a.b@example.com',
  "o'neil+tag@mail.example.org",
  'a@-example.com',
  'a@example.c0m',
  `${long(250)}@example.com`,
  `${long(236)}@example.com`,
  `${long(242)}@example.com`,
];
const PASSWORDS = ['', 'x', long(9), long(10), long(256), long(257)];
const NAMES = ['Ada', '', '   ', ` ${long(100)} `, long(101)];

/** What the zod contract says: the parsed data, or the words per field the forms showed before. */
function contract(schema: typeof LoginInput | typeof RegisterInput, value: object) {
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, fields: issuesByField(parsed.error) };
}

describe('the sign-in and registration checks without zod', () => {
  it('agree with LoginInput on every email and password: the same data, the same words per field', () => {
    for (const email of EMAILS) {
      for (const password of PASSWORDS) {
        expect(checkLogin({ email, password }), JSON.stringify({ email, password })).toEqual(contract(LoginInput, { email, password }));
      }
    }
  });

  it('agree with RegisterInput on every name, email and password, in Chinese too', () => {
    for (const lang of ['en', 'zh'] as const) {
      useLocale(lang);
      for (const email of EMAILS) {
        for (const password of PASSWORDS) {
          for (const name of NAMES) {
            const value = { name, email, password, locale: lang };
            expect(checkRegister(value), JSON.stringify(value)).toEqual(contract(RegisterInput, value));
          }
        }
      }
    }
  });
});
