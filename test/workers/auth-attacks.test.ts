/**
 * Attacks on sign-in and registration, performed against the real Worker and D1: concurrent
 * guessing, lock-out of the owner, credential stuffing from one address (and spoofed address
 * headers), registration floods, account enumeration by work done, and the registration race.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { TestClient, signedInClient, type ApiResult } from './client.ts';
import { passwordWork } from '../../worker/auth/password.ts';
import { ACCOUNT_LOGIN_POLICY, IP_LOGIN_POLICY, IP_REGISTER_POLICY } from '../../worker/auth/throttle.ts';
import { guardLogs } from './log-canary.ts';

// Nothing this file's faults make the Worker or the session object log may carry a key, an email or a hash.
guardLogs();

const WRONG = 'wrong password';
const RIGHT = 'correct horse battery';

function login(email: string, password: string, headers: Record<string, string> = {}) {
  return new TestClient().request('POST', '/api/auth/login', { email, password }, headers);
}

function register(email: string, headers: Record<string, string> = {}) {
  return new TestClient().request('POST', '/api/auth/register', { email, password: 'long enough pw', name: 'Flood' }, headers);
}

function expectThrottled(res: ApiResult, maxSeconds: number) {
  expect(res.status).toBe(429);
  expect(res.error?.code).toBe('RATE_LIMITED');
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(maxSeconds);
}

describe('sign-in throttling', () => {
  it('checks at most the allowance of 40 concurrent wrong guesses on one account; the rest get 429 with Retry-After', async () => {
    const user = await signedInClient('Concurrent');
    const before = passwordWork.derivations;
    const results = await Promise.all(Array.from({ length: 40 }, () => login(user.email, WRONG)));
    const checked = results.filter((r) => r.status === 401);
    const refused = results.filter((r) => r.status !== 401);
    expect(checked).toHaveLength(ACCOUNT_LOGIN_POLICY.allowance);
    expect(passwordWork.derivations - before).toBe(ACCOUNT_LOGIN_POLICY.allowance);
    for (const res of refused) expectThrottled(res, ACCOUNT_LOGIN_POLICY.baseDelayMs / 1000);
  });

  it('only delays the owner after an attack: more guesses do not extend the wait, and the right password works once it is over', async () => {
    const user = await signedInClient('Delayed');
    for (let i = 0; i < ACCOUNT_LOGIN_POLICY.allowance; i++) expect((await login(user.email, WRONG)).status).toBe(401);
    // Guesses while the account is waiting are refused without being counted …
    for (let i = 0; i < 10; i++) expectThrottled(await login(user.email, WRONG), ACCOUNT_LOGIN_POLICY.baseDelayMs / 1000);
    // … so the owner's wait is the first delay, not a lock for the whole window.
    expectThrottled(await login(user.email, RIGHT), ACCOUNT_LOGIN_POLICY.baseDelayMs / 1000);
    const key = `login:acct:${user.email}`;
    const row = await env.DB.prepare('SELECT attempts FROM auth_throttle WHERE key = ?').bind(key).first<{ attempts: number }>();
    expect(row!.attempts).toBe(ACCOUNT_LOGIN_POLICY.allowance);
    // The delay passes (moved back in the table instead of sleeping).
    await env.DB.prepare('UPDATE auth_throttle SET next_allowed_at = next_allowed_at - ? WHERE key = ?').bind(ACCOUNT_LOGIN_POLICY.baseDelayMs, key).run();
    const signedIn = await login(user.email, RIGHT);
    expect(signedIn.status).toBe(200);
    expect(await env.DB.prepare('SELECT count(*) AS n FROM auth_throttle WHERE key = ?').bind(key).first()).toEqual({ n: 0 });
  });

  // Guesses from anywhere share the account's counter, so a stranger who knows the email could keep
  // the owner waiting for ever (one guess each time the wait ends). A browser the owner signed in
  // with before counts on its own (the trusted-device cookie).
  it('never keeps the owner out of a browser they signed in with before, whatever others guess', async () => {
    const owner = await signedInClient('Trusted');
    const signIn = await new TestClient().request('POST', '/api/auth/login', { email: owner.email, password: RIGHT });
    expect(signIn.status).toBe(200);
    const cookies = signIn.headers.getSetCookie();
    const device = cookies.find((c) => c.startsWith('bmad_device='))!;
    expect(device).toMatch(/HttpOnly/i);
    expect(device).toMatch(/SameSite=Strict/i);
    expect(device).toMatch(/Path=\/api\/auth\/login/i);
    const deviceCookie = device.split(';')[0]!;
    expect(deviceCookie).not.toContain(owner.email);

    // A stranger guesses the account into its delay …
    for (let i = 0; i < ACCOUNT_LOGIN_POLICY.allowance; i++) expect((await login(owner.email, WRONG)).status).toBe(401);
    expectThrottled(await login(owner.email, WRONG), ACCOUNT_LOGIN_POLICY.baseDelayMs / 1000);
    // … and the owner's trusted browser still signs in at once, with the right password only.
    expect((await login(owner.email, WRONG, { cookie: deviceCookie })).status).toBe(401);
    expect((await login(owner.email, RIGHT, { cookie: deviceCookie })).status).toBe(200);
    // A new browser waits the account's delay, and a forged, altered or other account's cookie is a new browser.
    expectThrottled(await login(owner.email, RIGHT), ACCOUNT_LOGIN_POLICY.baseDelayMs / 1000);
    const [version, nonce, mac] = deviceCookie.slice('bmad_device='.length).split('.');
    // The first character: all its bits are the MAC's (the last one's lowest two are padding).
    const flipped = `${mac!.startsWith('A') ? 'B' : 'A'}${mac!.slice(1)}`;
    const other = await signedInClient('OtherDevice');
    const otherSignIn = await new TestClient().request('POST', '/api/auth/login', { email: other.email, password: RIGHT });
    const otherDevice = otherSignIn.headers.getSetCookie().find((c) => c.startsWith('bmad_device='))!.split(';')[0]!;
    for (const forged of [`bmad_device=${version}.${nonce}.${flipped}`, `bmad_device=${version}.AAAAAAAAAAAAAAAAAAAAAA.${mac}`, 'bmad_device=v1.x.y', otherDevice]) {
      expectThrottled(await login(owner.email, RIGHT, { cookie: forged }), ACCOUNT_LOGIN_POLICY.baseDelayMs / 1000);
    }
    // The trusted browser has a counter of its own: guessing there delays it alone.
    for (let i = 0; i < ACCOUNT_LOGIN_POLICY.allowance; i++) expect((await login(owner.email, WRONG, { cookie: deviceCookie })).status).toBe(401);
    expectThrottled(await login(owner.email, RIGHT, { cookie: deviceCookie }), ACCOUNT_LOGIN_POLICY.baseDelayMs / 1000);
  });

  it('limits guesses per client address across many emails, keyed on CF-Connecting-IP only', async () => {
    const address = '203.0.113.21';
    for (let i = 0; i < IP_LOGIN_POLICY.allowance; i++) {
      // Changing the headers a client controls must not give it a fresh counter.
      const res = await login(`stuffing-${i}@example.test`, WRONG, {
        'cf-connecting-ip': address,
        'x-forwarded-for': `198.51.100.${i}`,
        'true-client-ip': `198.51.100.${i}`,
        'x-real-ip': `198.51.100.${i}`,
      });
      expect(res.status).toBe(401);
    }
    expectThrottled(await login('stuffing-next@example.test', WRONG, { 'cf-connecting-ip': address }), IP_LOGIN_POLICY.baseDelayMs / 1000);
    const spoofed = await login('stuffing-spoof@example.test', WRONG, {
      'cf-connecting-ip': address,
      'x-forwarded-for': '198.51.100.200',
      'true-client-ip': '198.51.100.200',
    });
    expectThrottled(spoofed, IP_LOGIN_POLICY.baseDelayMs / 1000);
    // Even the right password of a real account is refused from that address for now …
    const victim = await signedInClient('Stuffed');
    expectThrottled(await login(victim.email, RIGHT, { 'cf-connecting-ip': address }), IP_LOGIN_POLICY.baseDelayMs / 1000);
    // … while another address, claiming to be the throttled one in a forwarding header, is not throttled.
    const other = await login(victim.email, RIGHT, { 'cf-connecting-ip': '203.0.113.22', 'x-forwarded-for': address, 'true-client-ip': address });
    expect(other.status).toBe(200);
  });

  // An office behind one NAT, or a developer restarting the demo: successes must not add up to a lock-out.
  it('counts only failed sign-ins against an address: many successes never lock it, and do not reset its failures', async () => {
    const address = '203.0.113.25';
    const user = await signedInClient('SameOffice');
    for (let i = 0; i < 30; i++) expect((await login(user.email, RIGHT, { 'cf-connecting-ip': address })).status).toBe(200);
    expect((await login(user.email, RIGHT, { 'cf-connecting-ip': address })).status).toBe(200);
    const key = `login:ip:${address}`;
    expect(await env.DB.prepare('SELECT count(*) AS n FROM auth_throttle WHERE key = ?').bind(key).first()).toEqual({ n: 0 });
    // Failures still count, and a success between them (a valid account of the attacker's) resets nothing.
    const half = IP_LOGIN_POLICY.allowance / 2;
    for (let i = 0; i < half; i++) expect((await login(`office-${i}@example.test`, WRONG, { 'cf-connecting-ip': address })).status).toBe(401);
    expect((await login(user.email, RIGHT, { 'cf-connecting-ip': address })).status).toBe(200);
    for (let i = half; i < IP_LOGIN_POLICY.allowance; i++) {
      expect((await login(`office-${i}@example.test`, WRONG, { 'cf-connecting-ip': address })).status).toBe(401);
    }
    const row = await env.DB.prepare('SELECT attempts FROM auth_throttle WHERE key = ?').bind(key).first<{ attempts: number }>();
    expect(row!.attempts).toBe(IP_LOGIN_POLICY.allowance);
    expectThrottled(await login('office-next@example.test', WRONG, { 'cf-connecting-ip': address }), IP_LOGIN_POLICY.baseDelayMs / 1000);
    expectThrottled(await login(user.email, RIGHT, { 'cf-connecting-ip': address }), IP_LOGIN_POLICY.baseDelayMs / 1000);
    // Once the wait passes, a success leaves the address's count and delay as it found them.
    await env.DB.prepare('UPDATE auth_throttle SET next_allowed_at = next_allowed_at - ? WHERE key = ?').bind(IP_LOGIN_POLICY.baseDelayMs, key).run();
    expect((await login(user.email, RIGHT, { 'cf-connecting-ip': address })).status).toBe(200);
    const after = await env.DB.prepare('SELECT attempts FROM auth_throttle WHERE key = ?').bind(key).first<{ attempts: number }>();
    expect(after!.attempts).toBe(IP_LOGIN_POLICY.allowance);
    expect((await login('office-last@example.test', WRONG, { 'cf-connecting-ip': address })).status).toBe(401);
    expectThrottled(await login('office-later@example.test', WRONG, { 'cf-connecting-ip': address }), (2 * IP_LOGIN_POLICY.baseDelayMs) / 1000);
  });

  it('counts exactly the failures when successes and failures from one address arrive at once', async () => {
    const address = '203.0.113.26';
    const users = await Promise.all(Array.from({ length: 3 }, (_, i) => signedInClient(`ConcurrentOffice${i}`)));
    const failures = IP_LOGIN_POLICY.allowance / 2;
    const results = await Promise.all([
      ...Array.from({ length: failures }, (_, i) => login(`rush-${i}@example.test`, WRONG, { 'cf-connecting-ip': address })),
      ...users.flatMap((user) => Array.from({ length: 3 }, () => login(user.email, RIGHT, { 'cf-connecting-ip': address }))),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([...Array<number>(9).fill(200), ...Array<number>(failures).fill(401)]);
    const row = await env.DB.prepare('SELECT attempts, next_allowed_at AS wait FROM auth_throttle WHERE key = ?').bind(`login:ip:${address}`).first();
    expect(row).toEqual({ attempts: failures, wait: 0 });
  });

  it('never keys on X-Forwarded-For or True-Client-IP when CF-Connecting-IP is absent', async () => {
    for (let i = 0; i < IP_LOGIN_POLICY.allowance + 3; i++) {
      const res = await login(`forwarded-${i}@example.test`, WRONG, { 'x-forwarded-for': '203.0.113.30', 'true-client-ip': '203.0.113.30' });
      expect(res.status).toBe(401);
    }
    const keys = await env.DB.prepare("SELECT count(*) AS n FROM auth_throttle WHERE key LIKE '%203.0.113.30%'").first();
    expect(keys).toEqual({ n: 0 });
  });

  it('refuses a registration flood from one address with 429 and Retry-After, and creates no account for it', async () => {
    const address = '203.0.113.40';
    for (let i = 0; i < IP_REGISTER_POLICY.allowance; i++) {
      expect((await register(`flood-${i}@example.test`, { 'cf-connecting-ip': address })).status).toBe(201);
    }
    expectThrottled(await register('flood-next@example.test', { 'cf-connecting-ip': address }), IP_REGISTER_POLICY.baseDelayMs / 1000);
    const created = await env.DB.prepare("SELECT count(*) AS n FROM users WHERE email = 'flood-next@example.test'").first();
    expect(created).toEqual({ n: 0 });
    expect((await register('flood-elsewhere@example.test', { 'cf-connecting-ip': '203.0.113.41' })).status).toBe(201);
  });
});

describe('account enumeration', () => {
  it('runs exactly one key derivation per sign-in attempt, whether the email has an account or not', async () => {
    const user = await signedInClient('Timing');
    const cases = [
      { email: `nobody-${Date.now()}@example.test`, password: WRONG, status: 401 },
      { email: user.email, password: WRONG, status: 401 },
      { email: user.email, password: RIGHT, status: 200 },
    ];
    for (const { email, password, status } of cases) {
      const before = passwordWork.derivations;
      const res = await login(email, password);
      expect(res.status).toBe(status);
      expect(passwordWork.derivations - before).toBe(1);
    }
  });
});

describe('registration race', () => {
  it('answers concurrent registrations of one email with one 201 and 409 AUTH_EMAIL_TAKEN for the others', async () => {
    const email = `race-${Date.now()}@example.test`;
    const results = await Promise.all(Array.from({ length: 4 }, () => register(email)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    for (const res of results.filter((r) => r.status === 409)) expect(res.error?.code).toBe('AUTH_EMAIL_TAKEN');
    expect(await env.DB.prepare('SELECT count(*) AS n FROM users WHERE email = ?').bind(email).first()).toEqual({ n: 1 });
  });
});
