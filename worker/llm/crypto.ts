/**
 * Encryption at rest of users' LLM API keys, used by the
 * profile store and by resolveEffectiveProfile. AES-256-GCM through WebCrypto: a fresh random
 * 96-bit nonce per encryption (NIST SP 800-38D §8.2.2), the user id bound in as additional
 * authenticated data, so a ciphertext copied into another user's row, or altered by one bit,
 * fails to decrypt instead of yielding garbage.
 *
 * Key-encryption keys (Worker secrets, base64 of 32 random bytes: `openssl rand -base64 32`):
 * - `LLM_KEY_ENCRYPTION_KEY` is the current key; its version is `LLM_KEY_ENCRYPTION_KEY_VERSION`
 *   (a whole number, default 1). Every row stores the version it was encrypted with.
 * - Rotation: put the old key in `LLM_KEY_ENCRYPTION_KEY_PREVIOUS` (it becomes version
 *   current - 1), the new key in `LLM_KEY_ENCRYPTION_KEY`, and bump the version. Old rows still
 *   decrypt; new and re-saved keys use the new version. Once
 *   `SELECT count(*) FROM user_llm_profiles WHERE api_key_version < <current>` is 0, remove
 *   the previous key.
 */
import type { LlmVars } from './llm-vars.ts';

export type KekEnv = Pick<LlmVars, 'LLM_KEY_ENCRYPTION_KEY' | 'LLM_KEY_ENCRYPTION_KEY_VERSION' | 'LLM_KEY_ENCRYPTION_KEY_PREVIOUS'>;

/** What is stored beside a profile: base64 ciphertext (with the GCM tag), base64 nonce, KEK version. */
export interface SealedApiKey {
  ciphertext: string;
  nonce: string;
  version: number;
}

export interface Keyring {
  current: number;
  keys: ReadonlyMap<number, CryptoKey>;
}

/** Why a key could not be stored or read; `message` is for the user, `hint` for operators. */
export interface KeyProblem {
  reason: 'kek_missing' | 'kek_invalid' | 'unknown_version' | 'malformed' | 'authentication_failed';
  message: string;
  hint: string;
}

export type KeyringResult = { type: 'ok'; keyring: Keyring } | { type: 'unavailable'; problem: KeyProblem };
export type OpenResult = { type: 'ok'; apiKey: string } | { type: 'failed'; problem: KeyProblem };

const NONCE_BYTES = 12;
const KEK_BYTES = 32;
const OPERATOR_HINT =
  'Operators: set the Worker secret LLM_KEY_ENCRYPTION_KEY to base64 of 32 random bytes (openssl rand -base64 32; wrangler secret put LLM_KEY_ENCRYPTION_KEY).';

/** The additional data bound into every ciphertext: a purpose label and the owner. */
function additionalData(userId: string): Uint8Array {
  return new TextEncoder().encode(`crewagent/user_llm_profiles.api_key/v1/${userId}`);
}

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function fromBase64(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    const binary = atob(text.trim());
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return null;
  }
}

async function importKek(secret: string, name: string): Promise<CryptoKey | KeyProblem> {
  const bytes = fromBase64(secret);
  if (bytes === null || bytes.byteLength !== KEK_BYTES) {
    return {
      reason: 'kek_invalid',
      message: 'The server is not set up to store API keys safely, so no key was stored or read.',
      hint: `Operators: ${name} must be base64 of exactly 32 bytes (openssl rand -base64 32).`,
    };
  }
  return crypto.subtle.importKey('raw', bytes, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
}

/** The configured key-encryption keys. A missing or malformed secret is reported, never guessed around. */
export async function loadKeyring(env: KekEnv): Promise<KeyringResult> {
  const secret = env.LLM_KEY_ENCRYPTION_KEY?.trim();
  if (!secret) {
    return {
      type: 'unavailable',
      problem: {
        reason: 'kek_missing',
        message: 'The server is not set up to store API keys safely, so no key was stored or read.',
        hint: OPERATOR_HINT,
      },
    };
  }
  const versionText = env.LLM_KEY_ENCRYPTION_KEY_VERSION?.trim() || '1';
  const current = Number(versionText);
  if (!/^\d+$/.test(versionText) || !Number.isSafeInteger(current) || current < 1) {
    return {
      type: 'unavailable',
      problem: {
        reason: 'kek_invalid',
        message: 'The server is not set up to store API keys safely, so no key was stored or read.',
        hint: `Operators: LLM_KEY_ENCRYPTION_KEY_VERSION must be a whole number from 1; it is "${versionText.slice(0, 20)}".`,
      },
    };
  }
  const keys = new Map<number, CryptoKey>();
  const currentKey = await importKek(secret, 'LLM_KEY_ENCRYPTION_KEY');
  if (!(currentKey instanceof CryptoKey)) return { type: 'unavailable', problem: currentKey };
  keys.set(current, currentKey);
  const previousSecret = env.LLM_KEY_ENCRYPTION_KEY_PREVIOUS?.trim();
  if (previousSecret && current > 1) {
    const previousKey = await importKek(previousSecret, 'LLM_KEY_ENCRYPTION_KEY_PREVIOUS');
    if (!(previousKey instanceof CryptoKey)) return { type: 'unavailable', problem: previousKey };
    keys.set(current - 1, previousKey);
  }
  return { type: 'ok', keyring: { current, keys } };
}

/** Encrypts with the current key and a fresh nonce: the same key saved twice gives two ciphertexts. */
export async function sealApiKey(keyring: Keyring, userId: string, apiKey: string): Promise<SealedApiKey> {
  const key = keyring.keys.get(keyring.current);
  if (key === undefined) throw new Error('keyring has no current key');
  const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  const ciphertext = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv: nonce, additionalData: additionalData(userId), tagLength: 128 },
    key,
    new TextEncoder().encode(apiKey),
  );
  return { ciphertext: toBase64(new Uint8Array(ciphertext)), nonce: toBase64(nonce), version: keyring.current };
}

const UNREADABLE_MESSAGE = 'The saved API key could not be decrypted, so it was not used. Enter the key again and save.';

/** Decrypts a stored key for its owner, or fails closed: never a partial or wrong plaintext. */
export async function openApiKey(keyring: Keyring, userId: string, sealed: SealedApiKey): Promise<OpenResult> {
  const key = keyring.keys.get(sealed.version);
  if (key === undefined) {
    return {
      type: 'failed',
      problem: {
        reason: 'unknown_version',
        message: UNREADABLE_MESSAGE,
        hint: `Operators: this key was encrypted with key-encryption key version ${sealed.version}, which is not configured (current: ${keyring.current}). Set LLM_KEY_ENCRYPTION_KEY_PREVIOUS to that key, or ask the user to enter the API key again.`,
      },
    };
  }
  const nonce = fromBase64(sealed.nonce);
  const ciphertext = fromBase64(sealed.ciphertext);
  if (nonce === null || nonce.byteLength !== NONCE_BYTES || ciphertext === null || ciphertext.byteLength <= 16) {
    return {
      type: 'failed',
      problem: { reason: 'malformed', message: UNREADABLE_MESSAGE, hint: 'Operators: the stored ciphertext or nonce is damaged.' },
    };
  }
  try {
    const plaintext = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: nonce, additionalData: additionalData(userId), tagLength: 128 },
      key,
      ciphertext,
    );
    return { type: 'ok', apiKey: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(plaintext) };
  } catch {
    return {
      type: 'failed',
      problem: {
        reason: 'authentication_failed',
        message: UNREADABLE_MESSAGE,
        hint: "Operators: the ciphertext did not authenticate. It was altered, copied from another user's row, or encrypted with a different key under the same version.",
      },
    };
  }
}
