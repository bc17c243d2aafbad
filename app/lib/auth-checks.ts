/**
 * The sign-in and registration forms' own checks, without zod: these two pages are the first load
 * of every visitor, and zod would be a quarter of it. They ask what `LoginInput` and
 * `RegisterInput` (shared/api/auth.ts) ask, with the same words (`issueWords`); the Worker parses
 * with the contracts anyway, and `auth-checks.test.ts` keeps the two in agreement.
 */
import type { LoginInput, RegisterInput } from '../../shared/api/auth.ts';
import { issueWords, type IssueLike } from './forms.ts';
import { t } from './i18n/i18n.svelte.ts';

/** zod's `z.email()` pattern (zod/v4/core regexes), which `Email` in shared/api/auth.ts applies. */
const EMAIL = /^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$/;
const MAX_EMAIL = 254;
const MAX_PASSWORD = 256;
const MIN_NEW_PASSWORD = 10;
const MAX_NAME = 100;

export type Checked<T> = { ok: true; data: T } | { ok: false; fields: Record<string, string> };

/** The first problem of one field as a zod issue would describe it, or undefined. */
type Problem = Omit<IssueLike, 'path'> | undefined;

function lengthProblem(value: string, min: number, max: number): Problem {
  if (value.length < min) return { code: 'too_small', origin: 'string', minimum: min };
  if (value.length > max) return { code: 'too_big', origin: 'string', maximum: max };
  return undefined;
}

function emailProblem(email: string): Problem {
  if (!EMAIL.test(email)) return { code: 'invalid_format', format: 'email' };
  return lengthProblem(email, 0, MAX_EMAIL);
}

function settle<T>(data: T, problems: Record<string, Problem>): Checked<T> {
  const fields: Record<string, string> = {};
  for (const [field, problem] of Object.entries(problems)) {
    if (!problem) continue;
    const words = issueWords({ ...problem, path: [field] });
    fields[field] = t(words.key, words.values);
  }
  return Object.keys(fields).length === 0 ? { ok: true, data } : { ok: false, fields };
}

/** What `LoginInput.safeParse` would make of the form: the email trimmed and lower-cased. */
export function checkLogin(input: { email: string; password: string }): Checked<LoginInput> {
  const email = input.email.trim().toLowerCase();
  return settle({ email, password: input.password }, { email: emailProblem(email), password: lengthProblem(input.password, 1, MAX_PASSWORD) });
}

/** What `RegisterInput.safeParse` would make of the form. */
export function checkRegister(input: { name: string; email: string; password: string; locale?: RegisterInput['locale'] }): Checked<RegisterInput> {
  const email = input.email.trim().toLowerCase();
  const name = input.name.trim();
  const data: RegisterInput = { email, password: input.password, name, ...(input.locale ? { locale: input.locale } : {}) };
  return settle(data, {
    email: emailProblem(email),
    password: lengthProblem(input.password, MIN_NEW_PASSWORD, MAX_PASSWORD),
    name: lengthProblem(name, 1, MAX_NAME),
  });
}
