/**
 * Helpers for the AI turn tests: a scripted model wired into a user's LLM profile, sending a
 * message, waiting for the turn's ending event, and reading the session object's storage.
 */
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { expect } from 'vitest';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import type { TestClient } from './client.ts';
import { scriptModel, type ScriptStep, type ScriptedModel } from './scripted-model.ts';
import type { ServerQuirks } from '../support/scripted-openai/types.ts';
import type { Watcher } from './sessions.ts';
import { CANARY_KEY } from './log-canary.ts';

/** A key-shaped canary: it must never appear in events, messages, audit rows, responses or logs. */
export { CANARY_KEY } from './log-canary.ts';

/** Script a model and make it `client`'s AI (the scripted server on 127.0.0.1, allowed in tests). */
export async function useScriptedModel(client: TestClient, steps: ScriptStep[], options: { contextWindow?: number; quirks?: ServerQuirks } = {}): Promise<ScriptedModel> {
  const scripted = await scriptModel(env.SCRIPTED_OPENAI_URL, steps, options.quirks ? { quirks: options.quirks } : {});
  const res = await client.put('/api/users/me/llm-profile', {
    provider: 'openai-compatible',
    preset: 'custom',
    baseUrl: env.SCRIPTED_OPENAI_URL,
    model: scripted.model,
    apiKey: CANARY_KEY,
    timeoutSeconds: 30,
    contextWindow: options.contextWindow ?? 128_000,
  });
  if (res.status !== 200) throw new Error(`profile failed: ${JSON.stringify(res.error)}`);
  return scripted;
}

export function toolCall(name: string, args: Record<string, unknown>, id?: string) {
  return { name: name.replaceAll('.', '_'), arguments: args, ...(id ? { id } : {}) };
}

export function finalAnswer(summary: string, responseType: 'chat' | 'change' = 'change', extra: Record<string, unknown> = {}) {
  return { content: JSON.stringify({ responseType, assistantSummary: summary, ...extra }) };
}

export async function send(client: TestClient, path: string, content: string, extra: Record<string, unknown> = {}) {
  return client.post(`${path}/messages`, { content, ...extra });
}

const ENDINGS = new Set(['turn.finished', 'turn.failed', 'turn.stopped', 'turn.paused']);

/** The ending event of `turnId` as a watcher saw it. */
export async function turnEnd(watcher: Watcher, turnId: string, timeoutMs = 15_000) {
  return watcher.until(() => watcher.events().find((e) => e.turnId === turnId && ENDINGS.has(e.type)), `end of ${turnId}`, timeoutMs);
}

/** Events are gap-free and in order, as a watcher received them. */
export function expectOrdered(events: Array<{ seq: number }>): void {
  events.forEach((e, i) => {
    if (i > 0) expect(e.seq).toBe(events[i - 1]!.seq + 1);
  });
}

export function sessionObject(sessionId: string) {
  return env.AI_SESSION.get(env.AI_SESSION.idFromName(sessionId));
}

/** Rows of the session object's own tables (tool runs, turns, messages). */
export async function objectRows(sessionId: string, query: string): Promise<Record<string, unknown>[]> {
  return runInDurableObject(sessionObject(sessionId), (instance: AiSessionDurableObject, state) => {
    void instance;
    return state.storage.sql.exec(query).toArray() as Record<string, unknown>[];
  });
}

export async function auditRows(projectId: string) {
  const { results } = await env.DB.prepare('SELECT event_type, code, payload_json FROM ai_audit_events WHERE project_id = ? ORDER BY created_at, id')
    .bind(projectId)
    .all<{ event_type: string; code: string | null; payload_json: string }>();
  return results;
}

/** Poll `check` (bounded) until it holds. */
export async function waitFor<T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
