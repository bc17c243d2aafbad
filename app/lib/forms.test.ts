import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CreateProjectInput, LoginInput, RegisterInput, UpdateProjectInput } from '../../shared/api/index.ts';
import { LlmProfileInput } from '../../shared/api/llm-profile.ts';
import { fieldErrors } from './api-errors.ts';
import { issuesByField } from './forms.ts';
import { useLocale } from './i18n/i18n.svelte.ts';
import { en } from './i18n/en.ts';

function errorOf(schema: z.ZodType, value: unknown): z.ZodError {
  const result = schema.safeParse(value);
  if (result.success) throw new Error('expected the value to be refused');
  return result.error;
}

/** Every English text of the catalogue, to prove a Chinese reader is shown none of them. */
const englishTexts = new Set<string>();
(function collect(tree: object) {
  for (const value of Object.values(tree)) typeof value === 'string' ? englishTexts.add(value) : collect(value as object);
})(en);
const hasLatinWords = (text: string) => /[A-Za-z]{3,}\s[A-Za-z]{3,}/.test(text);

afterEach(() => useLocale('en'));

describe('issuesByField', () => {
  it('keys each message by its field, in the catalogue’s words for the issue', () => {
    expect(issuesByField(errorOf(LoginInput, { email: 'not-an-email', password: '' }))).toEqual({
      email: 'Enter a valid email address.',
      password: 'Fill in this field.',
    });
  });

  it('maps the register form’s issues to Chinese words when the reader reads Chinese', async () => {
    await useLocale('zh');
    const fields = issuesByField(errorOf(RegisterInput, { email: 'x', password: 'short', name: ' ' }));
    expect(fields).toEqual({ email: '请输入有效的邮箱地址。', password: '至少需要 10 个字符。', name: '请输入名称。' });
  });

  it('puts lengths and limits into the words, and picks the field’s own words where the contract has them', async () => {
    expect(issuesByField(errorOf(CreateProjectInput, { name: 'x'.repeat(101) }))).toEqual({ name: 'Use at most 100 characters.' });
    await useLocale('zh');
    expect(issuesByField(errorOf(UpdateProjectInput, { requiredApprovals: 11, version: 'one' }))).toEqual({
      requiredApprovals: '请输入 0 到 10 之间的数字。',
      version: '请使用类似 1.0.0 的版本号。',
    });
    expect(issuesByField(errorOf(LlmProfileInput, { contextWindow: 12 }))).toEqual({ contextWindow: '请输入不小于 1024 的数字。' });
  });

  it('never shows a Chinese reader the contract’s English message', async () => {
    await useLocale('zh');
    const cases: Array<[z.ZodType, unknown]> = [
      [LoginInput, { email: '', password: '' }],
      [RegisterInput, { email: 'a@b', password: '', name: '' }],
      [CreateProjectInput, { name: '' }],
      [UpdateProjectInput, {}],
      [LlmProfileInput, { apiKey: 'has space', contextWindow: 1.5, extra: 1 }],
    ];
    for (const [schema, value] of cases) {
      for (const message of Object.values(issuesByField(errorOf(schema, value)))) {
        expect(hasLatinWords(message), message).toBe(false);
        expect(englishTexts.has(message), message).toBe(false);
      }
    }
  });

  it('keeps only the first message of a field, and names a nested field by its own name', () => {
    const schema = z.object({ agents: z.array(z.object({ id: z.string().min(1).regex(/^[a-z]+$/u) })) });
    expect(issuesByField(errorOf(schema, { agents: [{ id: 'a' }, { id: '' }] }))).toEqual({ id: 'Fill in this field.' });
  });

  it('files an issue of the whole form under "form"', async () => {
    await useLocale('zh');
    expect(issuesByField(errorOf(UpdateProjectInput, {}))).toEqual({ form: '没有需要修改的内容。' });
  });
});

describe('fieldErrors', () => {
  const validation = {
    code: 'VALIDATION_FAILED' as const,
    message: '部分字段缺失或取值错误。',
    details: [
      { path: 'domainProfile.painPoints', message: 'Too big: expected string to have <=2000 characters' },
      { path: 'name', message: 'Enter a project name.', code: 'too_small' },
    ],
  };

  it('gives English readers the server’s own words', () => {
    expect(fieldErrors(validation)).toEqual({ painPoints: 'Too big: expected string to have <=2000 characters', name: 'Enter a project name.' });
  });

  it('gives Chinese readers catalogue words for a field the server refused', async () => {
    await useLocale('zh');
    expect(fieldErrors(validation)).toEqual({ painPoints: '服务器未接受该值。', name: '请输入名称。' });
  });

  it('shows another code’s message, already in the reader’s language, beside its field', async () => {
    await useLocale('zh');
    const body = { code: 'LLM_PROFILE_MISSING_MODEL' as const, message: '请输入模型名称。', details: [{ path: 'model', message: 'Enter the model name.' }] };
    expect(fieldErrors(body)).toEqual({ model: '请输入模型名称。' });
  });
});
