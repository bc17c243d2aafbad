/**
 * The log canary (issue 13): a fault suite calls `guardLogs()` and, once all its tests ran, every line
 * logged during the file (console-recorder.ts) is searched for the secrets the suite handled — the
 * canary API key, every email and password the test clients sent, and, read from D1, each user's
 * password hash and salt and each stored key ciphertext. Keys are also searched in the forms a leak
 * could take (spaced out, base64, URL-encoded, hex): worker/llm/secret-forms.ts, the product's own finder.
 */
import { env } from 'cloudflare:workers';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { SecretMatcher, replaceRanges } from '../../worker/llm/secret-forms.ts';
import { recordedLines, resetRecord } from './console-recorder.ts';

/** A key-shaped canary: every fault suite's model profile uses it; it must never appear anywhere. */
export const CANARY_KEY = 'sk-canary-turn-0123456789abcdefABCDEF';

export interface Canary {
  kind: 'api key' | 'email' | 'password' | 'password hash' | 'password salt' | 'key ciphertext';
  value: string;
}

// Per isolate, like the recorder: client.ts notes what it sends, the guard reads it at the end of a file.
const KEY = Symbol.for('crewagent.test.sentCredentials');
const holder = globalThis as typeof globalThis & { [KEY]?: Map<string, Canary> };
const sent = (holder[KEY] ??= new Map<string, Canary>());

/** Called by the test client for every JSON body it sends: remembers its email and password fields. */
export function noteCredentials(body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  const { email, password } = body as { email?: unknown; password?: unknown };
  if (typeof email === 'string') sent.set(`email:${email}`, { kind: 'email', value: email });
  if (typeof password === 'string') sent.set(`password:${password}`, { kind: 'password', value: password });
}

/** What D1 holds that must never be logged: users' emails, hashes and salts, stored key ciphertext. */
export async function storedCanaries(): Promise<Canary[]> {
  const users = await env.DB.prepare('SELECT email, password_hash, password_salt FROM users').all<{
    email: string;
    password_hash: string;
    password_salt: string;
  }>();
  const keys = await env.DB.prepare('SELECT api_key_ciphertext FROM user_llm_profiles WHERE api_key_ciphertext IS NOT NULL').all<{
    api_key_ciphertext: string;
  }>();
  return [
    ...users.results.flatMap((u): Canary[] => [
      { kind: 'email', value: u.email },
      { kind: 'password hash', value: u.password_hash },
      { kind: 'password salt', value: u.password_salt },
    ]),
    ...keys.results.map((k): Canary => ({ kind: 'key ciphertext', value: k.api_key_ciphertext })),
  ];
}

export function keyCanaries(): Canary[] {
  // The tail too: a leak may drop the recognisable "sk-canary" start.
  return [CANARY_KEY, CANARY_KEY.slice(10)].map((value) => ({ kind: 'api key', value }));
}

export interface Hit {
  kinds: Canary['kind'][];
  /** The line with every canary form cut out, so the failure report does not spread them further. */
  line: string;
}

/** The lines that contain a canary in any of its forms. */
export function canaryHits(lines: readonly string[], canaries: readonly Canary[]): Hit[] {
  const all = new SecretMatcher(canaries.map((c) => c.value));
  const hits: Hit[] = [];
  for (const line of lines) {
    const ranges = all.find(line);
    if (ranges.length === 0) continue;
    const kinds = [...new Set(canaries.filter((c) => new SecretMatcher([c.value]).find(line).length > 0).map((c) => c.kind))];
    hits.push({ kinds, line: replaceRanges(line, ranges, '[CANARY]') });
  }
  return hits;
}

/**
 * Registers the canary check for the calling test file: D1's secrets are read after each test (in
 * case a test's storage is dropped when it ends) and once more at the end, then every recorded line
 * is searched.
 */
export function guardLogs(): void {
  const canaries = new Map<string, Canary>();
  const collect = async () => {
    for (const canary of [...keyCanaries(), ...sent.values(), ...(await storedCanaries())]) canaries.set(`${canary.kind}:${canary.value}`, canary);
  };
  beforeAll(() => {
    resetRecord();
    sent.clear();
  });
  afterEach(collect);
  afterAll(async () => {
    await collect();
    const lines = recordedLines();
    expect(canaryHits(lines, [...canaries.values()]), `a canary in the ${lines.length} lines logged by this file`).toEqual([]);
  });
}
