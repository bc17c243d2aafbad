import { describe, expect, it } from 'vitest';
import { isSecretKey, REDACTED, redactSecrets, redactText } from './redact.ts';

describe('redactText', () => {
  it.each([
    ['Incorrect API key provided: sk-proj-AbC123xyz_789-qq.', `Incorrect API key provided: ${REDACTED}.`],
    ['key sk-ant-api03-abcdef0123 rejected', `key ${REDACTED} rejected`],
    ['Authorization: Bearer abc.def-ghi', `Authorization: Bearer ${REDACTED}`],
    ['bearer eyJhbGciOi.x.y', `bearer ${REDACTED}`],
    ['https://x.test/v1?api_key=hunter22&model=a', `https://x.test/v1?api_key=${REDACTED}&model=a`],
    ['{"apiKey":"k-123456","model":"m"}', `{"apiKey":"${REDACTED}","model":"m"}`],
    ['password=swordfish!', `password=${REDACTED}`],
    ['client_secret: s3cr3t', `client_secret: ${REDACTED}`],
    ['Google key AIzaSyA1234567890abcdefghijKLMNOP', `Google key ${REDACTED}`],
    ['groq gsk_ABCDEFGHIJ1234567890', `groq ${REDACTED}`],
  ])('%s', (input, expected) => {
    expect(redactText(input)).toBe(expected);
  });

  it('leaves ordinary text alone, token counts included', () => {
    const text = 'max_tokens: 5, prompt_tokens=12. The task-list is on disk-space sk-1.';
    expect(redactText(text)).toBe(text);
  });

  it('removes known secrets of any shape', () => {
    expect(redactText('the key canary-Z9y8X7 was refused', ['canary-Z9y8X7'])).toBe(`the key ${REDACTED} was refused`);
  });

  it('ignores known secrets too short to be keys', () => {
    expect(redactText('a b c', ['a'])).toBe('a b c');
  });

  it('is idempotent', () => {
    const once = redactText('Authorization: Bearer sk-abcdefghijk api_key=zzzzzz');
    expect(redactText(once)).toBe(once);
  });
});

describe('redactSecrets', () => {
  it('redacts key-named fields and key-shaped strings deeply, and keeps token counts', () => {
    const value = {
      apiKey: 'anything',
      api_key: 'x',
      headers: { Authorization: 'Bearer abc', 'x-trace': 'ok' },
      nested: [{ accessToken: 't' }, { clientSecret: 's' }, { userPassword: 'p' }, 'see sk-abcdefghijklmn'],
      usage: { prompt_tokens: 5, totalTokens: 9 },
      refreshTokenCount: 3,
      model: 'gpt',
    };
    expect(redactSecrets(value)).toEqual({
      apiKey: REDACTED,
      api_key: REDACTED,
      headers: { Authorization: REDACTED, 'x-trace': 'ok' },
      nested: [{ accessToken: REDACTED }, { clientSecret: REDACTED }, { userPassword: REDACTED }, `see ${REDACTED}`],
      usage: { prompt_tokens: 5, totalTokens: 9 },
      refreshTokenCount: 3,
      model: 'gpt',
    });
  });

  it('does not change its input', () => {
    const value = { apiKey: 'k' };
    redactSecrets(value);
    expect(value.apiKey).toBe('k');
  });

  it('turns errors into name and redacted message, and cuts cycles', () => {
    const cyclic: Record<string, unknown> = { error: new Error('bad key sk-abcdefghijkl') };
    cyclic['self'] = cyclic;
    expect(redactSecrets(cyclic)).toEqual({ error: { name: 'Error', message: `bad key ${REDACTED}` }, self: '[Circular]' });
  });

  it('names secret keys', () => {
    expect(['apiKey', 'api_key', 'Authorization', 'sessionToken', 'SECRET', 'password'].every(isSecretKey)).toBe(true);
    expect(['max_tokens', 'completion_tokens', 'model', 'key'].some(isSecretKey)).toBe(false);
  });
});
