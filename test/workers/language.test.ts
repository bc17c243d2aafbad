// The language the API answers in: the person's choice (cookie, then account), then Accept-Language,
// then English. The code never changes with the language; only the words do.
import { describe, expect, it } from 'vitest';
import { errorText } from '../../shared/i18n/error-text.ts';
import { signedInClient, TestClient } from './client.ts';

const hasHan = (text: string | undefined) => /\p{Script=Han}/u.test(text ?? '');

describe('error words follow the reader’s language', () => {
  it('answers in Chinese for Accept-Language zh, with the same stable code', async () => {
    const client = new TestClient();
    const res = await client.request('GET', '/api/auth/me', undefined, { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.5' });
    expect(res.status).toBe(401);
    expect(res.error?.code).toBe('AUTH_MISSING_TOKEN');
    expect(res.error?.message).toBe(errorText('AUTH_MISSING_TOKEN', 'zh').message);
    expect(res.error?.hints).toEqual([errorText('AUTH_MISSING_TOKEN', 'zh').hint]);
  });

  it('falls back to English for a language it does not speak', async () => {
    const res = await new TestClient().request('GET', '/api/auth/me', undefined, { 'accept-language': 'fr-FR,de;q=0.8' });
    expect(res.error?.code).toBe('AUTH_MISSING_TOKEN');
    expect(hasHan(res.error?.message)).toBe(false);
    expect(res.error?.message).toBe(errorText('AUTH_MISSING_TOKEN', 'en').message);
  });

  it('localises validation failures and unknown endpoints too', async () => {
    const client = new TestClient();
    const bad = await client.request('POST', '/api/auth/login', { email: 'nope' }, { 'accept-language': 'zh' });
    expect(bad.error?.code).toBe('VALIDATION_FAILED');
    expect(hasHan(bad.error?.message)).toBe(true);
    const missing = await client.request('GET', '/api/no-such-endpoint', undefined, { 'accept-language': 'zh' });
    expect(missing.error?.code).toBe('NOT_FOUND');
    expect(hasHan(missing.error?.message)).toBe(true);
  });

  it('takes the lang cookie over Accept-Language', async () => {
    const res = await new TestClient().request('GET', '/api/auth/me', undefined, { 'accept-language': 'zh', cookie: 'lang=en' });
    expect(hasHan(res.error?.message)).toBe(false);
  });
});

describe('the language chosen on the account', () => {
  it('is stored by PATCH /api/auth/me, returned by /me, and used for errors without any header', async () => {
    const client = await signedInClient('Lin');
    expect((await client.get('/api/auth/me')).data.user.locale).toBeUndefined();

    const saved = await client.patch('/api/auth/me', { locale: 'zh' });
    expect(saved.status).toBe(200);
    expect(saved.data.user.locale).toBe('zh');
    expect((await client.get('/api/auth/me')).data.user.locale).toBe('zh');

    const refused = await client.get('/api/projects/no-such-project');
    expect(refused.error?.code).toBe('PROJECT_NOT_FOUND');
    expect(refused.error?.message).toBe(errorText('PROJECT_NOT_FOUND', 'zh').message);
  });

  it('refuses a language the product does not speak and keeps the old choice', async () => {
    const client = await signedInClient('Kai');
    await client.patch('/api/auth/me', { locale: 'zh' });
    const refused = await client.patch('/api/auth/me', { locale: 'fr' });
    expect(refused.status).toBe(422);
    expect(refused.error?.code).toBe('VALIDATION_FAILED');
    expect((await client.get('/api/auth/me')).data.user.locale).toBe('zh');
  });

  it('is taken from registration and comes back at sign-in', async () => {
    const client = new TestClient();
    const email = `mei-${Date.now()}@example.test`;
    const created = await client.post('/api/auth/register', { email, password: 'correct horse battery', name: 'Mei', locale: 'zh' });
    expect(created.data.user.locale).toBe('zh');
    const again = new TestClient();
    const signedIn = await again.post('/api/auth/login', { email, password: 'correct horse battery' });
    expect(signedIn.data.user.locale).toBe('zh');
  });

  it('cannot be changed by someone signed out', async () => {
    const res = await new TestClient().patch('/api/auth/me', { locale: 'zh' });
    expect(res.status).toBe(401);
  });
});
