/**
 * The trusted-device cookie (OWASP's "device cookie" defence against lock-out). A browser that
 * signed in to an account gets a cookie naming that account, signed by the server. Its sign-in
 * attempts for that account are then throttled on their own counter (accounts.ts), so guesses from
 * elsewhere, which all share the account's counter, cannot keep the owner out of a browser they
 * used before; on a new browser the owner waits the account's delay like anyone else.
 *
 * The value is `v1.<nonce>.<mac>`: a random nonce, and an HMAC-SHA-256 over the version, the
 * account's email and the nonce, with a key derived (HKDF) from the server's key-encryption secret
 * for this purpose only. The email is not in the cookie. Without that secret no cookie is issued
 * and every attempt counts against the account, as before. A forged, altered or other account's
 * cookie is simply not trusted.
 */
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { isLocalhost } from './cookies.ts';

export const DEVICE_COOKIE = 'bmad_device';
const DEVICE_TTL_SECONDS = 180 * 24 * 60 * 60;
/** Sent only with sign-in: no other request needs it. */
const DEVICE_PATH = '/api/auth/login';
const VERSION = 'v1';

type SecretEnv = { LLM_KEY_ENCRYPTION_KEY?: string };

const encoder = new TextEncoder();
const macKeys = new Map<string, Promise<CryptoKey>>();

function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** The MAC key for `secret`, derived once per isolate; null without a secret. */
function macKey(env: SecretEnv): Promise<CryptoKey> | null {
  const secret = env.LLM_KEY_ENCRYPTION_KEY?.trim();
  if (!secret) return null;
  let key = macKeys.get(secret);
  if (!key) {
    key = (async () => {
      const material = await crypto.subtle.importKey('raw', encoder.encode(secret), 'HKDF', false, ['deriveKey']);
      return crypto.subtle.deriveKey(
        { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: encoder.encode('crewagent trusted-device cookie v1') },
        material,
        { name: 'HMAC', hash: 'SHA-256', length: 256 },
        false,
        ['sign', 'verify'],
      );
    })();
    macKeys.set(secret, key);
  }
  return key;
}

const signed = (email: string, nonce: string) => encoder.encode(`${VERSION}\n${email}\n${nonce}`);

/** Mark this browser as one that signed in to `email`. */
export async function issueDeviceCookie(c: Context, env: SecretEnv, email: string): Promise<void> {
  const key = macKey(env);
  if (!key) return;
  const nonce = base64url(crypto.getRandomValues(new Uint8Array(16)));
  const mac = base64url(new Uint8Array(await crypto.subtle.sign('HMAC', await key, signed(email, nonce))));
  setCookie(c, DEVICE_COOKIE, `${VERSION}.${nonce}.${mac}`, {
    httpOnly: true,
    sameSite: 'Strict',
    secure: !isLocalhost(c),
    path: DEVICE_PATH,
    maxAge: DEVICE_TTL_SECONDS,
  });
}

function fromBase64url(text: string): Uint8Array | null {
  // A length of 1 mod 4 is no base64 at all (atob would throw).
  if (!/^[A-Za-z0-9_-]{2,64}$/.test(text) || text.length % 4 === 1) return null;
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/') + '='.repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
}

/**
 * The nonce of this browser's device cookie when it was issued for `email`, else null (no cookie,
 * no secret, another account's, or not ours). The nonce keys the device's own sign-in counter.
 */
export async function trustedDevice(c: Context, env: SecretEnv, email: string): Promise<string | null> {
  const value = getCookie(c, DEVICE_COOKIE);
  const key = macKey(env);
  if (!value || !key) return null;
  const [version, nonce, macText] = value.split('.');
  if (version !== VERSION || !nonce || !macText || !fromBase64url(nonce)) return null;
  const mac = fromBase64url(macText);
  if (!mac) return null;
  // verify compares in constant time.
  return (await crypto.subtle.verify('HMAC', await key, mac, signed(email, nonce))) ? nonce : null;
}
