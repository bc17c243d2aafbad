/**
 * Password hashing with PBKDF2-SHA256 through WebCrypto. Workers cap PBKDF2 at 100,000
 * iterations (a higher count throws NotSupportedError), so that is the count we use; the
 * count is stored per user so it can be raised where the platform allows.
 */
export const PBKDF2_ITERATIONS = 100_000;
const HASH_BITS = 256;

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));
}

/**
 * How many PBKDF2 derivations this isolate has run. Sign-in must cost the same whether or not the
 * email has an account (no timing oracle), and throttled attempts must cost none; the Workers
 * tests read this counter (they share the Worker's isolate) to check both.
 */
export const passwordWork = { derivations: 0 };

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  passwordWork.derivations++;
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(password), 'PBKDF2', false, [
    'deriveBits',
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt: salt as BufferSource, iterations },
    key,
    HASH_BITS,
  );
  return new Uint8Array(bits);
}

export interface PasswordHash {
  hash: string;
  salt: string;
  iterations: number;
}

export async function hashPassword(password: string, iterations = PBKDF2_ITERATIONS): Promise<PasswordHash> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await derive(password, salt, iterations);
  return { hash: toBase64(hash), salt: toBase64(salt), iterations };
}

/** A stand-in for an email without an account: the same derivation is run, and always fails. */
const NO_ACCOUNT: PasswordHash = { hash: toBase64(new Uint8Array(HASH_BITS / 8)), salt: toBase64(new Uint8Array(16)), iterations: PBKDF2_ITERATIONS };

/**
 * Constant-time comparison of the derived hash with the stored one. With `null` (no such
 * account) the same work is done against a dummy hash and the answer is false, so a sign-in
 * for an unknown email takes as long as one for a known email.
 */
export async function verifyPassword(password: string, stored: PasswordHash | null): Promise<boolean> {
  if (stored === null) {
    await verifyPassword(password, NO_ACCOUNT);
    return false;
  }
  const expected = fromBase64(stored.hash);
  const actual = await derive(password, fromBase64(stored.salt), stored.iterations);
  if (actual.byteLength !== expected.byteLength) return false;
  let diff = 0;
  for (let i = 0; i < actual.byteLength; i++) diff |= actual[i]! ^ expected[i]!;
  return diff === 0;
}
