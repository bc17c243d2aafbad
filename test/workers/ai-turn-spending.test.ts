/**
 * What an AI turn spends, inside workerd against the real Worker, session object and scripted model:
 * usage added up per call, turn and session; the token budget pausing a turn and refusing new
 * messages; and whose key resuming a paused turn spends (only its sender's, unless it runs on the
 * system default model). Shares turn-control.ts with ai-turn-control.test.ts.
 */
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import { estimatePromptTokens } from '../support/scripted-openai/wire.ts';
import { finalAnswer, send, sessionObject, turnEnd } from './turns.ts';
import { auditTypes, conversation, readContext, runTurn, startTurn, turnEvents, turnSetup } from './turn-control.ts';

describe('usage and token budget', () => {
  it('adds usage up per call (as the provider reported it), per turn and per session, never overwriting', async () => {
    const { owner, path, scripted, watcher } = await turnSetup([readContext(), finalAnswer('First answer.', 'chat'), finalAnswer('Second answer.', 'chat')]);
    const first = await runTurn(owner, path, watcher, 'First question.');
    const second = await runTurn(owner, path, watcher, 'Second question.');
    expect([first.type, second.type]).toEqual(['turn.finished', 'turn.finished']);

    // Per call: what the scripted server reported for each request (its prompt estimate + the reply).
    const requests = await scripted.requests();
    const calls = watcher.events().filter((e) => e.type === 'llm.completed');
    expect(calls).toHaveLength(3);
    expect(requests).toHaveLength(3);
    calls.forEach((call, i) => {
      const usage = call.payload.usage;
      expect(usage.calls).toBe(1);
      expect(usage.promptTokens).toBe(estimatePromptTokens(requests[i]!.body as Record<string, unknown>));
      expect(usage.completionTokens).toBeGreaterThan(0);
      expect(usage.totalTokens).toBe(usage.promptTokens + usage.completionTokens);
    });

    // Per turn: the sum of its calls; per session: the sum of the turns.
    const sumOf = (events: any[]) => events.map((e) => e.payload.usage).reduce(addUsage, ZERO);
    expect(first.payload.usage).toEqual(sumOf(calls.filter((c) => c.turnId === first.turnId)));
    expect(second.payload.usage).toEqual(sumOf(calls.filter((c) => c.turnId === second.turnId)));
    expect(first.payload.usage.calls).toBe(2);
    expect(first.payload.sessionUsage).toEqual(first.payload.usage);
    const session = addUsage(first.payload.usage, second.payload.usage);
    expect(second.payload.sessionUsage).toEqual(session);
    const state = (await owner.get(path)).data;
    expect(state.usage).toEqual({ session, tokenBudget: null });
    expect(state.turn.usage).toEqual(second.payload.usage);
  });

  it('pauses at the token budget, refuses new messages and an unfunded resume, and continues once the budget is raised', async () => {
    const { owner, projectId, path, scripted, watcher } = await turnSetup([readContext(), finalAnswer('Done within the new budget.', 'chat')], { tokenBudget: 1_000 });
    expect((await owner.get(path)).data.usage.tokenBudget).toBe(1_000);

    const turnId = await startTurn(owner, path, 'Summarise the step.');
    const paused = await turnEnd(watcher, turnId);
    expect(paused.type).toBe('turn.paused');
    expect(paused.payload).toMatchObject({ code: 'AI_TOKEN_BUDGET_EXCEEDED', tokenBudget: 1_000 });
    // One call is enough: the scripted server counts the system prompt and the tool schemas.
    expect(paused.payload.sessionUsage.totalTokens).toBeGreaterThanOrEqual(1_000);
    expect(paused.payload.usage.calls).toBe(1);
    expect((await owner.get(path)).data.turn).toMatchObject({ turnId, status: 'paused' });
    expect(await auditTypes(projectId)).toContain('ai.turn.paused');

    const another = await send(owner, path, 'And another thing.');
    expect(another.status).toBe(409);
    expect(another.error).toMatchObject({ code: 'AI_TURN_IN_PROGRESS', turnId, turnStatus: 'paused' });
    const unfunded = await owner.post(`${path}/resume`);
    expect(unfunded.status).toBe(409);
    expect(unfunded.error?.code).toBe('AI_TOKEN_BUDGET_EXCEEDED');

    const raised = await owner.patch(path, { tokenBudget: 1_000_000 });
    expect(raised.status).toBe(200);
    expect(raised.data.tokenBudget).toBe(1_000_000);
    const resumed = await owner.post(`${path}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.data).toEqual({ turnId, status: 'running' });

    const finished = await watcher.event('turn.finished', (e) => e.turnId === turnId);
    expect(finished.payload.summary).toBe('Done within the new budget.');
    expect(finished.payload.usage.calls).toBe(2);
    const resumedEvent = turnEvents(watcher, turnId, 'turn.resumed');
    expect(resumedEvent.map((e) => e.payload.reason)).toEqual(['budget']);
    expect(resumedEvent[0].seq).toBeGreaterThan(paused.seq);
    expect(await scripted.requests()).toHaveLength(2);
    expect(await conversation(owner, path)).toEqual([
      ['user', 'Summarise the step.'],
      ['assistant', 'Done within the new budget.'],
    ]);

    // With the budget used up again, a new message is refused at once and not stored.
    expect((await owner.patch(path, { tokenBudget: 1_000 })).status).toBe(200);
    const overBudget = await send(owner, path, 'One more, please.');
    expect(overBudget.status).toBe(409);
    expect(overBudget.error?.code).toBe('AI_TOKEN_BUDGET_EXCEEDED');
    expect(await conversation(owner, path)).toHaveLength(2);
  });
});

describe("resuming a paused turn spends its sender's key", () => {
  /** The owner's turn, on the owner's own model and key, paused at a 1,000-token session budget; an editor beside them. */
  async function pausedOwnTurn() {
    const setup = await turnSetup([readContext(), finalAnswer('Done on the owner\'s key.', 'chat')], { tokenBudget: 1_000 });
    const editor = await setup.member('editor');
    const turnId = await startTurn(setup.owner, setup.path, 'Summarise the step.');
    expect((await turnEnd(setup.watcher, turnId)).type).toBe('turn.paused');
    return { ...setup, editor, turnId };
  }

  it("refuses another editor's resume of a turn on the owner's own key, even after they raised the budget; the owner can", async () => {
    const { owner, editor, path, scripted, watcher, turnId } = await pausedOwnTurn();
    // Raising the budget spends nothing by itself, so an editor may.
    expect((await editor.patch(path, { tokenBudget: 10_000_000 })).status).toBe(200);
    const refused = await editor.post(`${path}/resume`);
    expect(refused.status).toBe(403);
    expect(refused.error).toMatchObject({ code: 'FORBIDDEN', turnId });
    expect(refused.error?.message).toMatch(/Owner's own AI model and key/);
    expect(refused.error?.hints).toEqual(['Ask Owner to resume it, or stop it and send a new message to run on your own model.']);
    expect((await owner.get(path)).data.turn).toMatchObject({ turnId, status: 'paused' });
    expect(turnEvents(watcher, turnId, 'turn.resumed')).toEqual([]);
    expect(await scripted.requests()).toHaveLength(1);

    const resumed = await owner.post(`${path}/resume`);
    expect(resumed.status).toBe(200);
    expect((await watcher.event('turn.finished', (e) => e.turnId === turnId)).payload.summary).toBe("Done on the owner's key.");
    expect(await scripted.requests()).toHaveLength(2);
  });

  it("lets another editor stop it: a stop spends nothing", async () => {
    const { editor, path, scripted, turnId } = await pausedOwnTurn();
    const stopped = await editor.post(`${path}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.data).toEqual({ turnId, status: 'stopped' });
    expect(await scripted.requests()).toHaveLength(1);
  });

  it('lets any editor resume a turn that now runs on the system default model', async () => {
    const { owner, editor, path, sessionId, scripted, watcher, turnId } = await pausedOwnTurn();
    // The owner turns their own model off: the turn would now run on the system default (here the same scripted queue).
    expect((await owner.put('/api/users/me/llm-profile', { provider: 'disabled' })).status).toBe(200);
    await runInDurableObject(sessionObject(sessionId), (instance: AiSessionDurableObject) => {
      const object = instance as unknown as { env: Record<string, unknown> };
      // The scripted server, like OpenAI, wants some key (the demo's, no secret: app/lib/llm-presets.ts).
      object.env = { ...object.env, LLM_SYSTEM_DEFAULT_BASE_URL: env.SCRIPTED_OPENAI_URL, LLM_SYSTEM_DEFAULT_MODEL: scripted.model, LLM_SYSTEM_DEFAULT_API_KEY: 'sk-local-demo-key' };
    });
    expect((await editor.patch(path, { tokenBudget: 10_000_000 })).status).toBe(200);
    const resumed = await editor.post(`${path}/resume`);
    expect(resumed.status).toBe(200);
    expect((await watcher.event('turn.resumed', (e) => e.turnId === turnId)).actor).toMatchObject({ userId: editor.userId });
    const ended = await watcher.until(() => watcher.events().find((e) => e.turnId === turnId && ['turn.finished', 'turn.failed', 'turn.stopped'].includes(e.type)), 'the resumed turn to end');
    expect(ended).toMatchObject({ type: 'turn.finished', payload: { summary: "Done on the owner's key." } });
  });
});

// ---------------------------------------------------------------- usage arithmetic

type UsageSum = { promptTokens: number; completionTokens: number; totalTokens: number; calls: number; estimatedCostUsd: number | null };
const ZERO: UsageSum = { promptTokens: 0, completionTokens: 0, totalTokens: 0, calls: 0, estimatedCostUsd: 0 };

function addUsage(a: UsageSum, b: UsageSum): UsageSum {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    calls: a.calls + b.calls,
    // A cost is unknown (null) once any call's model has no price (shared/ai/pricing.ts).
    estimatedCostUsd: a.estimatedCostUsd === null || b.estimatedCostUsd === null ? null : a.estimatedCostUsd + b.estimatedCostUsd,
  };
}
