// A model without settings and what AI costs: the system default under the org policy and a
// person's own profile (worker/llm/effective-profile.ts), what someone without a usable model is
// told, the cost estimate the session object puts beside every usage, and usage per person.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../worker/db/client.ts';
import { resolveEffectiveProfile, type LlmEnv } from '../../worker/llm/effective-profile.ts';
import { connect, supportDeskProject, stepSession } from './sessions.ts';
import { send, toolCall, turnEnd, useScriptedModel, waitFor } from './turns.ts';
import type { TestClient } from './client.ts';
import { projectWithOwner, signedInClient } from './client.ts';

const db = () => createDb(env.DB);
const withEnv = (overrides: Partial<LlmEnv>): LlmEnv => ({ ...env, ...overrides });
/** The scripted server, like OpenAI, wants some key; the demo's is no secret (app/lib/llm-presets.ts). */
const DEMO_KEY = 'sk-local-demo-key';
/** What `npm start` writes into .dev.vars: the scripted demo model as the system default. */
const DEMO_DEFAULT = {
  LLM_SYSTEM_DEFAULT_BASE_URL: env.SCRIPTED_OPENAI_URL,
  LLM_SYSTEM_DEFAULT_MODEL: 'scripted-demo',
  LLM_SYSTEM_DEFAULT_API_KEY: DEMO_KEY,
};

async function useModel(client: TestClient, model: string) {
  const res = await client.put('/api/users/me/llm-profile', {
    provider: 'openai-compatible',
    preset: 'custom',
    baseUrl: env.SCRIPTED_OPENAI_URL,
    model,
    apiKey: DEMO_KEY,
    timeoutSeconds: 30,
    contextWindow: 128_000,
  });
  if (res.status !== 200) throw new Error(`profile failed: ${JSON.stringify(res.error)}`);
}

describe('the system default model', () => {
  it('gives a fresh account the scripted demo model without any settings', async () => {
    const fresh = await signedInClient('Fresh');
    expect(await resolveEffectiveProfile(withEnv(DEMO_DEFAULT), db(), fresh.userId)).toEqual({
      type: 'available',
      profile: { baseUrl: env.SCRIPTED_OPENAI_URL, model: 'scripted-demo', apiKey: DEMO_KEY, timeoutSeconds: 60, contextWindow: null, source: 'system' },
    });
  });

  it("is overridden by a person's own enabled profile, and both yield to an org policy of disable-all", async () => {
    const own = await signedInClient('Own');
    await useModel(own, 'my-own-model');
    expect(await resolveEffectiveProfile(withEnv(DEMO_DEFAULT), db(), own.userId)).toMatchObject({
      type: 'available',
      profile: { model: 'my-own-model', source: 'user' },
    });
    const fresh = await signedInClient('Fresh');
    for (const user of [own, fresh]) {
      expect(await resolveEffectiveProfile(withEnv({ ...DEMO_DEFAULT, LLM_ORG_POLICY_MODE: 'disable-all' }), db(), user.userId)).toMatchObject({
        type: 'unavailable',
        code: 'LLM_PROFILE_ORG_POLICY_BLOCKED',
      });
    }
  });

  it('tells someone with no usable model exactly what to do, naming only choices that exist', async () => {
    const fresh = await signedInClient('Nobody');
    const result = await resolveEffectiveProfile(env, db(), fresh.userId);
    expect(result).toMatchObject({ type: 'unavailable', code: 'AI_DISABLED', message: expect.stringMatching(/No AI model is set up for you/) });
    const hints = result.type === 'unavailable' ? result.hints : [];
    expect(hints[0]).toContain('Settings → AI (/settings/ai)');
    expect(hints[1]).toMatch(/ask your operator to set LLM_SYSTEM_DEFAULT_BASE_URL and LLM_SYSTEM_DEFAULT_MODEL/);
    // The settings page offers presets and "Turn AI off", never an "openai-compatible" choice.
    expect(JSON.stringify(result)).not.toContain('openai-compatible');

    // The same words reach the person: on their settings and when they send a message.
    const profile = await fresh.get('/api/users/me/llm-profile');
    expect(profile.data.effectiveAvailability).toMatchObject({ available: false, code: 'AI_DISABLED', hints });
    const { base, member } = await supportDeskProject();
    const editor = await member('editor');
    const sessionId = await stepSession(editor, base);
    const refused = await send(editor, `${base}/ai/sessions/${sessionId}`, 'Hello');
    expect(refused.status).toBe(409);
    expect(refused.error).toMatchObject({ code: 'AI_DISABLED', hints: [expect.stringContaining('/settings/ai'), expect.stringContaining('LLM_SYSTEM_DEFAULT_MODEL')] });
  });

  it('never tells an API client to pick a provider the settings page does not offer', async () => {
    const client = await signedInClient('Api');
    const res = await client.put('/api/users/me/llm-profile', { provider: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' });
    expect(res.status).toBe(422);
    expect(res.error?.code).toBe('LLM_PROFILE_INVALID_PROVIDER');
    expect(res.error?.message).toMatch(/"provider" field/);
    expect(res.error?.hints?.[0]).toMatch(/In Settings → AI every provider .* is "openai-compatible"; "Turn AI off" is "disabled"/);
  });
});

describe('estimated cost', () => {
  async function oneTurn(model: 'priced' | 'unpriced' | 'demo') {
    const { owner, base, projectId, member } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    if (model === 'unpriced') await useScriptedModel(owner, [{ content: 'Nothing to change.' }]);
    else await useModel(owner, model === 'priced' ? 'scripted-echo' : 'scripted-demo');
    const watcher = await connect(owner, base, sessionId);
    const accepted = await send(owner, `${base}/ai/sessions/${sessionId}`, 'How much does this cost?');
    expect(accepted.status).toBe(202);
    const end = await turnEnd(watcher, accepted.data.turnId);
    const calls = watcher.events().filter((e) => e.type === 'llm.completed').map((e) => e.payload.usage);
    watcher.close();
    return { owner, base, projectId, member, sessionId, end, calls };
  }

  it('prices each call from LLM_PRICES_JSON and sums it per turn and per session', async () => {
    const { owner, base, sessionId, end, calls } = await oneTurn('priced');
    expect(end.type).toBe('turn.finished');
    expect(calls.length).toBeGreaterThan(0);
    for (const usage of calls) {
      expect(usage.promptTokens).toBeGreaterThan(0);
      expect(usage.estimatedCostUsd).toBeCloseTo((usage.promptTokens * 3 + usage.completionTokens * 15) / 1e6, 12);
    }
    const turnCost = calls.reduce((sum: number, usage: { estimatedCostUsd: number }) => sum + usage.estimatedCostUsd, 0);
    expect(end.payload.usage.estimatedCostUsd).toBeCloseTo(turnCost, 12);
    expect(end.payload.sessionUsage.estimatedCostUsd).toBeCloseTo(turnCost, 12);
    const view = await owner.get(`${base}/ai/sessions/${sessionId}`);
    expect(view.data.usage.session.estimatedCostUsd).toBeCloseTo(turnCost, 12);
    expect(view.data.turn.usage.estimatedCostUsd).toBeCloseTo(turnCost, 12);
  });

  it('says the cost is unknown (null), not a number, for a model without a price', async () => {
    const { end, calls } = await oneTurn('unpriced');
    expect(end.type).toBe('turn.finished');
    expect(calls.map((usage) => usage.estimatedCostUsd)).toEqual(calls.map(() => null));
    expect(end.payload.usage.estimatedCostUsd).toBeNull();
    expect(end.payload.usage.totalTokens).toBeGreaterThan(0);
  });

  it('costs nothing on the scripted demo model', async () => {
    const { end } = await oneTurn('demo');
    expect(end.type).toBe('turn.finished');
    expect(end.payload.usage.totalTokens).toBeGreaterThan(0);
    expect(end.payload.usage.estimatedCostUsd).toBe(0);
  });
});

describe('usage per person', () => {
  it("sums each person's turns in the project, keeping unknown costs apart; editors only", async () => {
    const { owner, base, projectId, member } = await supportDeskProject();
    await useModel(owner, 'scripted-echo');
    const ownerSession = await stepSession(owner, base);
    const ownerWatcher = await connect(owner, base, ownerSession);
    const ownerTurn = await send(owner, `${base}/ai/sessions/${ownerSession}`, 'First');
    const first = { end: await turnEnd(ownerWatcher, ownerTurn.data.turnId) };
    ownerWatcher.close();
    const editor = await member('editor');
    const viewer = await member('viewer');
    await useScriptedModel(editor, [{ content: 'Fine.' }]);
    const sessionId = await stepSession(editor, base);
    const watcher = await connect(editor, base, sessionId);
    const accepted = await send(editor, `${base}/ai/sessions/${sessionId}`, 'Second');
    const editorEnd = await turnEnd(watcher, accepted.data.turnId);
    watcher.close();
    await waitFor(async () => {
      const { results } = await env.DB.prepare("SELECT count(*) AS n FROM ai_audit_events WHERE project_id = ? AND event_type = 'ai.turn.finished'")
        .bind(projectId)
        .all<{ n: number }>();
      return results[0]!.n === 2;
    }, 'two finished turns in the audit trail');

    const res = await owner.get(`${base}/ai/usage`);
    expect(res.status).toBe(200);
    const byId = Object.fromEntries((res.data.people as Array<{ userId: string }>).map((p) => [p.userId, p]));
    expect(byId[owner.userId]).toEqual({
      userId: owner.userId,
      name: 'Owner',
      turns: 1,
      tokens: { prompt: first.end.payload.usage.promptTokens, completion: first.end.payload.usage.completionTokens, total: first.end.payload.usage.totalTokens },
      estimatedCostUsd: first.end.payload.usage.estimatedCostUsd,
      turnsWithUnknownCost: 0,
    });
    expect(first.end.payload.usage.estimatedCostUsd).toBeGreaterThan(0);
    expect(byId[editor.userId]).toMatchObject({
      name: 'Edith',
      turns: 1,
      tokens: { total: editorEnd.payload.usage.totalTokens },
      estimatedCostUsd: 0,
      turnsWithUnknownCost: 1,
    });
    expect(Object.keys(byId)).toHaveLength(2);

    const forViewer = await viewer.get(`${base}/ai/usage`);
    expect(forViewer.status).toBe(403);
  });

  it('counts a turn against the person who sent it, even when someone else stopped it', async () => {
    const { owner, base, projectId, member } = await supportDeskProject();
    const editor = await member('editor');
    const scripted = await useScriptedModel(editor, [
      { toolCalls: [toolCall('builder.context.get', {}, 'call_ctx')] },
      // Held far longer than the test: only the stop ends this call.
      { reply: { content: 'never sent' }, delayMs: 60_000 },
    ]);
    const sessionId = await stepSession(editor, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const watcher = await connect(owner, base, sessionId);
    const accepted = await send(editor, path, 'Read the context');
    await watcher.until(() => watcher.events().filter((e) => e.type === 'llm.requested').length === 2, 'second model request');
    await waitFor(async () => (await scripted.pending()) === 1, 'the held call');
    expect((await owner.post(`${path}/stop`)).status).toBe(200);
    const end = await turnEnd(watcher, accepted.data.turnId);
    watcher.close();
    expect(end.type).toBe('turn.stopped');
    expect(end.payload.usage.calls).toBe(1);
    await waitFor(async () => {
      const row = await env.DB.prepare("SELECT 1 AS n FROM ai_audit_events WHERE project_id = ? AND event_type = 'ai.turn.stopped'").bind(projectId).first();
      return row !== null;
    }, 'the stopped turn in the audit trail');

    const res = await owner.get(`${base}/ai/usage`);
    expect(res.data.people).toEqual([
      {
        userId: editor.userId,
        name: 'Edith',
        turns: 1,
        tokens: { prompt: end.payload.usage.promptTokens, completion: end.payload.usage.completionTokens, total: end.payload.usage.totalTokens },
        estimatedCostUsd: 0,
        turnsWithUnknownCost: 1,
      },
    ]);
  });

  it('counts a paused and resumed turn once, reads old rows without a cost as unknown, and stays in its project and window', async () => {
    const { owner, base, projectId, member } = await projectWithOwner();
    const editor = await member('editor');
    const other = await projectWithOwner();
    const use = (prompt: number, completion: number, calls: number, cost?: number | null) => ({
      promptTokens: prompt,
      completionTokens: completion,
      totalTokens: prompt + completion,
      calls,
      ...(cost === undefined ? {} : { estimatedCostUsd: cost }),
    });
    const row = (project: string, minute: number, type: string, userId: string, payload: unknown) =>
      env.DB.prepare('INSERT INTO ai_audit_events (id, project_id, session_id, user_id, event_type, payload_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)').bind(
        `aud_${project}_${minute}`,
        project,
        's1',
        userId,
        type,
        JSON.stringify(payload),
        new Date(Date.UTC(2030, 0, 1, 10, minute)).toISOString(),
      );
    await env.DB.batch([
      // The editor's turn t1: paused by the budget, resumed, finished; usage is cumulative.
      row(projectId, 1, 'ai.turn.paused', editor.userId, { turnId: 't1', turnUserId: editor.userId, usage: use(100, 10, 1, 0.5) }),
      row(projectId, 2, 'ai.turn.finished', editor.userId, { turnId: 't1', turnUserId: editor.userId, usage: use(300, 30, 3, 1.5) }),
      // The owner's turns: one written before costs existed (unknown), one that cost nothing, one with no calls.
      row(projectId, 3, 'ai.turn.finished', owner.userId, { turnId: 't2', usage: use(40, 4, 1) }),
      row(projectId, 4, 'ai.turn.finished', owner.userId, { turnId: 't3', turnUserId: owner.userId, usage: use(60, 6, 1, 0) }),
      row(projectId, 5, 'ai.turn.failed', owner.userId, { turnId: 't4', turnUserId: owner.userId, usage: use(0, 0, 0) }),
      // Not counted: other row types, another project, and (below) outside the window.
      row(projectId, 6, 'ai.message.sent', owner.userId, { turnId: 't5', usage: use(999, 999, 1, 9) }),
      row(other.projectId, 7, 'ai.turn.finished', owner.userId, { turnId: 't6', turnUserId: owner.userId, usage: use(999, 999, 1, 9) }),
      row(projectId, 30, 'ai.turn.finished', editor.userId, { turnId: 't7', turnUserId: editor.userId, usage: use(999, 999, 1, 9) }),
    ]);

    const until = new Date(Date.UTC(2030, 0, 1, 10, 10)).toISOString();
    const res = await owner.get(`${base}/ai/usage?until=${until}`);
    expect(res.status).toBe(200);
    expect(res.data.people).toEqual([
      { userId: editor.userId, name: 'Edith', turns: 1, tokens: { prompt: 300, completion: 30, total: 330 }, estimatedCostUsd: 1.5, turnsWithUnknownCost: 0 },
      { userId: owner.userId, name: 'Owner', turns: 3, tokens: { prompt: 100, completion: 10, total: 110 }, estimatedCostUsd: 0, turnsWithUnknownCost: 1 },
    ]);
  });
});
