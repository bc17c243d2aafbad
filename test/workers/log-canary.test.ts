/**
 * The log canary itself (log-canary.ts, console-recorder.ts): it sees lines whoever logs them, even
 * after a suite restores its mocks, and it recognises each secret in the forms a leak could take.
 * Without these, a canary that recorded nothing would pass every fault suite.
 */
import { describe, expect, it, vi } from 'vitest';
import { signedInClient } from './client.ts';
import { linesSince, mark } from './console-recorder.ts';
import { CANARY_KEY, canaryHits, keyCanaries, storedCanaries, type Canary } from './log-canary.ts';
import { useScriptedModel } from './turns.ts';

function base64(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}

describe('the console recorder', () => {
  it('keeps recording after a suite spies on console and restores all mocks', () => {
    const at = mark();
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    console.error('while spied');
    vi.restoreAllMocks();
    console.error('after restore', { n: 1 });
    expect(spy).toHaveBeenCalledTimes(1);
    expect(linesSince(at)).toEqual(['after restore { n: 1 }']);
  });
});

describe('the canary search', () => {
  it('finds the canary key as is, spaced out, base64, URL-encoded and hex, and nothing in a clean line', () => {
    const keys = keyCanaries();
    const hex = [...new TextEncoder().encode(CANARY_KEY)].map((b) => b.toString(16).padStart(2, '0')).join('');
    const leaks = [
      `provider said: invalid key ${CANARY_KEY}`,
      `key ${[...CANARY_KEY].join(' ')}`,
      `{"auth":"${base64(`Bearer ${CANARY_KEY}`)}"}`,
      `url ?key=${encodeURIComponent(CANARY_KEY)}`,
      `bytes ${hex.toUpperCase()}`,
      `tail only ${CANARY_KEY.slice(10)}`,
    ];
    const hits = canaryHits([...leaks, 'ai session: tool failed unexpectedly {"tool":"builder.step.read"}'], keys);
    expect(hits.map((h) => h.kinds)).toEqual(leaks.map(() => ['api key']));
    for (const hit of hits) expect(hit.line).toContain('[CANARY]');
  });

  it("reads each user's email, password hash and salt and the stored key ciphertext from D1, and finds them in a line", async () => {
    const user = await signedInClient('Canary');
    await useScriptedModel(user, []);
    const stored = await storedCanaries();
    const mine = (kind: Canary['kind']) => stored.filter((c) => c.kind === kind);
    expect(mine('email').map((c) => c.value)).toContain(user.email);
    expect(mine('password hash').length).toBeGreaterThan(0);
    expect(mine('password salt').length).toBeGreaterThan(0);
    expect(mine('key ciphertext').length).toBeGreaterThan(0);
    const ciphertext = mine('key ciphertext')[0]!.value;
    const hash = mine('password hash')[0]!.value;
    const lines = [
      `Failed query: insert into users params: ${user.email},${hash}`,
      `row ${JSON.stringify({ api_key_ciphertext: ciphertext })}`,
      'unhandled error {"error":{"name":"Error","message":"D1_ERROR: UNIQUE constraint failed: users.email"}}',
    ];
    const hits = canaryHits(lines, stored);
    expect(hits.map((h) => h.kinds.sort())).toEqual([['email', 'password hash'], ['key ciphertext']]);
  });
});
