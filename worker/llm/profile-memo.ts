/**
 * The effective profiles the session objects resolved from sealed rows the Worker handed them with
 * a message (resolveFromRow), kept in the isolate's memory (one memo per env, shared by the objects
 * of the isolate: a new session's first message is the common case) by the row's exact stored values: the
 * next message with the same row skips the key's decryption and the checks; a changed, turned-off
 * or deleted profile arrives as a different row (or null) and is resolved again. The opened key
 * lives only here, in memory: never stored, logged or sent.
 */
import type { SealedLlmProfile } from '../../shared/llm/types.ts';
import { resolveFromRow, type EffectiveProfileResult, type LlmEnv } from './effective-profile.ts';

/** Senders kept per isolate; the least recently resolved goes first beyond this. */
const MAX_SENDERS = 64;

const memos = new WeakMap<LlmEnv, ProfileMemo>();

/** The memo of `env` (a profile resolves against the env's policy and default model). */
export function profileMemoFor(env: LlmEnv): ProfileMemo {
  let memo = memos.get(env);
  if (!memo) memos.set(env, (memo = new ProfileMemo(env)));
  return memo;
}

export class ProfileMemo {
  readonly #env: LlmEnv;
  readonly #kept = new Map<string, { row: string; result: EffectiveProfileResult }>();

  constructor(env: LlmEnv) {
    this.#env = env;
  }

  async resolve(userId: string, sealed: SealedLlmProfile | null): Promise<EffectiveProfileResult> {
    const row = JSON.stringify(sealed);
    const kept = this.#kept.get(userId);
    if (kept?.row === row) {
      this.#kept.delete(userId);
      this.#kept.set(userId, kept);
      return kept.result;
    }
    const result = await resolveFromRow(this.#env, userId, sealed ?? undefined);
    this.#kept.delete(userId);
    this.#kept.set(userId, { row, result });
    if (this.#kept.size > MAX_SENDERS) this.#kept.delete(this.#kept.keys().next().value!);
    return result;
  }
}
