/**
 * The effective profiles a session object resolved from sealed rows the Worker handed it with a
 * message (resolveFromRow), kept in the object's memory by the row's exact stored values: the
 * next message with the same row skips the key's decryption and the checks; a changed, turned-off
 * or deleted profile arrives as a different row (or null) and is resolved again. The opened key
 * lives only here, in memory: never stored, logged or sent.
 */
import type { SealedLlmProfile } from '../../shared/llm/types.ts';
import { resolveFromRow, type EffectiveProfileResult, type LlmEnv } from './effective-profile.ts';

/** Senders kept per object: a session has few; the oldest goes first beyond this. */
const MAX_SENDERS = 16;

export class ProfileMemo {
  readonly #env: LlmEnv;
  readonly #kept = new Map<string, { row: string; result: EffectiveProfileResult }>();

  constructor(env: LlmEnv) {
    this.#env = env;
  }

  async resolve(userId: string, sealed: SealedLlmProfile | null): Promise<EffectiveProfileResult> {
    const row = JSON.stringify(sealed);
    const kept = this.#kept.get(userId);
    if (kept?.row === row) return kept.result;
    const result = await resolveFromRow(this.#env, userId, sealed ?? undefined);
    this.#kept.delete(userId);
    this.#kept.set(userId, { row, result });
    if (this.#kept.size > MAX_SENDERS) this.#kept.delete(this.#kept.keys().next().value!);
    return result;
  }
}
