import { describe, expect, it } from 'vitest';
import { isSecretKey, REDACTED, redactKnownSecrets, redactSecrets, redactText } from './redact.ts';

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

describe('redactText with a known key echoed in another form', () => {
  const KEY = 'sk-canary-Q7w2E9r4T6y1U3i8O5p0';
  const bytes = new TextEncoder().encode(KEY);
  const base64 = (data: Uint8Array) => btoa(String.fromCharCode(...data));
  const urlSafe = (text: string) => text.replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  /** The key inside a longer base64 string: `before` bytes ahead of it shift its alignment. */
  const embedded = (before: number) => base64(new Uint8Array([...new TextEncoder().encode('xyz'.slice(0, before)), ...bytes, 0x21, 0x22]));

  it.each([
    ['as is', KEY],
    ['upper-cased', KEY.toUpperCase()],
    ['spaced out', [...KEY].join(' ')],
    ['one character a line', [...KEY].join('\n')],
    ['with zero-width characters between', [...KEY].join('\u200b')],
    ['with dashes and spaces between', [...KEY].join(' - ')],
    ['with mixed separators between', [...KEY].map((c, i) => c + ['\u2060', '\t', '\u200d', '\u00a0'][i % 4]).join('')],
    ['base64', base64(bytes)],
    ['base64, url-safe', urlSafe(base64(bytes))],
    ['base64 after 1 byte', embedded(1)],
    ['base64 after 2 bytes', embedded(2)],
    ['base64 after 3 bytes', embedded(3)],
    ['url-safe base64 after 1 byte', urlSafe(embedded(1))],
    ['url-safe base64 after 2 bytes', urlSafe(embedded(2))],
    ['base64 wrapped in lines', base64(bytes).replace(/(.{8})/g, '$1\n')],
    ['URL-encoded (every byte)', [...bytes].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('')],
    ['URL-encoded (every byte, lower-case hex)', [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')],
    ['hex', hex],
    ['hex, upper-case and spaced', hex.toUpperCase().replace(/(..)/g, '$1 ')],
  ])('removes the key %s', (_name, form) => {
    const out = redactText(`my key is ${form} ok`, [KEY]);
    expect(out).toContain(REDACTED);
    expect(out.startsWith('my key is ')).toBe(true);
    expect(out.endsWith(' ok')).toBe(true);
    // What is left of the form is at most the few base64 characters that also depend on neighbouring bytes.
    expect(out.length).toBeLessThanOrEqual(`my key is ${REDACTED} ok`.length + 10);
  });

  it('removes a key with characters that URL-encoding changes, in its encodeURIComponent form', () => {
    const key = 'k3y+with/slash=and&amp';
    expect(redactText(`?key=${encodeURIComponent(key)}&x=1`, [key])).toBe(`?key=${REDACTED}&x=1`);
    expect(redactText(`?q=${encodeURIComponent(key).toLowerCase()}`, [key])).toBe(`?q=${REDACTED}`);
  });

  it('removes every echo, and only the echoes', () => {
    const text = `a ${KEY} b ${[...KEY].join(' ')} c ${base64(bytes)} d ${hex} e`;
    expect(redactKnownSecrets(text, [KEY])).toBe(`a ${REDACTED} b ${REDACTED} c ${REDACTED} d ${REDACTED} e`);
  });

  it('leaves ordinary text alone, text sharing most of the key included', () => {
    const text = [
      'The agent uses sk-canary as a name prefix; see https://example.test/a%20b?x=1.',
      'Base64 of hello: aGVsbG8=; hex 68656c6c6f; a - b - c; 日本語テキスト 🙂.',
      `Nearly the key: ${KEY.slice(0, -1)}. ${[...KEY.slice(1)].join(' ')}`,
      '{"responseType": "chat", "assistantSummary": "Set api_key: ${OPENAI_API_KEY} and token: 5"}',
    ].join('\n');
    expect(redactKnownSecrets(text, [KEY])).toBe(text);
  });

  it('does not join the characters of a key across a long run of separators', () => {
    const text = `${KEY.slice(0, 10)}${' '.repeat(100)}${KEY.slice(10)}`;
    expect(redactKnownSecrets(text, [KEY])).toBe(text);
  });

  it('finds the key at the end of a megabyte of near-misses', () => {
    const nearMiss = `${[...KEY.slice(0, -1)].join(' ')} ${KEY.slice(0, -1)}${'-'.repeat(5)}\u200b`;
    const filler = nearMiss.repeat(Math.ceil(1_000_000 / nearMiss.length));
    expect(redactKnownSecrets(`${filler}${KEY}`, [KEY])).toBe(`${filler}${REDACTED}`);
    expect(redactKnownSecrets(`${filler}${[...KEY].join(' ')}`, [KEY])).toBe(`${filler}${REDACTED}`);
  });
});
