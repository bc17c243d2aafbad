// A VALIDATION_FAILED answer names each field's problem by zod's issue code (and its bounds or
// format), so an app reading another language can word the problem itself instead of a generic text.
import { describe, expect, it } from 'vitest';
import { TestClient } from './client.ts';

describe('VALIDATION_FAILED details', () => {
  it('carry the zod issue code with its minimum, maximum and format', async () => {
    const res = await new TestClient().request(
      'POST',
      '/api/auth/register',
      { email: 'not-an-email', password: 'short', name: 'x'.repeat(500), extra: 1 },
      { 'accept-language': 'zh' },
    );
    expect(res.error?.code).toBe('VALIDATION_FAILED');
    const byPath = new Map((res.error?.details ?? []).map((d) => [d.path, d]));
    expect(byPath.get('email')).toMatchObject({ code: 'invalid_format', format: 'email' });
    expect(byPath.get('password')).toMatchObject({ code: 'too_small', minimum: 10, origin: 'string' });
    expect(byPath.get('name')).toMatchObject({ code: 'too_big', origin: 'string' });
    expect(typeof byPath.get('name')?.maximum).toBe('number');
    expect(byPath.get('(body)')).toMatchObject({ code: 'unrecognized_keys' });
  });
});
