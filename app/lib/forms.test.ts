import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LoginInput } from '../../shared/api/index.ts';
import { issuesByField } from './forms.ts';

function errorOf(schema: z.ZodType, value: unknown): z.ZodError {
  const result = schema.safeParse(value);
  if (result.success) throw new Error('expected the value to be refused');
  return result.error;
}

describe('issuesByField', () => {
  it('keys each message by its field, with the messages the shared contract gives', () => {
    const fields = issuesByField(errorOf(LoginInput, { email: 'not-an-email', password: '' }));
    expect(Object.keys(fields).sort()).toEqual(['email', 'password']);
    for (const message of Object.values(fields)) expect(message).not.toBe('');
  });

  it('keeps only the first message of a field', () => {
    const schema = z.object({ name: z.string().min(3, 'Too short.').regex(/^[a-z]+$/u, 'Lower-case letters only.') });
    expect(issuesByField(errorOf(schema, { name: 'A' }))).toEqual({ name: 'Too short.' });
  });

  it('names a nested field by its own name, skipping array indexes', () => {
    const schema = z.object({ agents: z.array(z.object({ id: z.string().min(1, 'An agent needs an id.') })) });
    expect(issuesByField(errorOf(schema, { agents: [{ id: 'a' }, { id: '' }] }))).toEqual({ id: 'An agent needs an id.' });
  });

  it('files an issue of the whole form under "form"', () => {
    const schema = z
      .object({ password: z.string(), repeat: z.string() })
      .refine((v) => v.password === v.repeat, { message: 'The passwords differ.' });
    expect(issuesByField(errorOf(schema, { password: 'a', repeat: 'b' }))).toEqual({ form: 'The passwords differ.' });
  });
});
