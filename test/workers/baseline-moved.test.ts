/**
 * After a write that moves the baseline, the Worker tells the project's live sessions
 * (worker/middleware/baseline-moved.ts) — every one but the session that applied, which dropped
 * its own baseline as part of the apply. Baseline drops are counted by wrapping the session core's
 * `baselineMoved` inside the real objects (the channel message and the apply both end there).
 */
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import { currentStep, stepChangeSet, stepSession, supportDeskProject } from './sessions.ts';
import { sessionObject } from './turns.ts';

/** How often the session object drops its kept baseline from now on. */
async function baselineDrops(sessionId: string): Promise<{ count: number }> {
  const drops = { count: 0 };
  await runInDurableObject(sessionObject(sessionId), (instance: AiSessionDurableObject) => {
    const core = instance.core;
    const drop = core.baselineMoved.bind(core);
    core.baselineMoved = () => {
      drops.count += 1;
      drop();
    };
  });
  return drops;
}

describe('baselineMoved after a write', () => {
  it('tells every other live session of the project after an apply, not the session that applied', async () => {
    const { owner, base } = await supportDeskProject();
    const applying = await stepSession(owner, base);
    const watching = await stepSession(owner, base);
    const step = await currentStep(owner, base);
    const staged = await owner.post(`${base}/ai/sessions/${applying}/stage`, { changeSet: stepChangeSet(`${step.markdown}\n\nApplied while another session watches.\n`) });
    expect(staged.status).toBe(200);
    const toApplying = await baselineDrops(applying);
    const toWatching = await baselineDrops(watching);
    const applied = await owner.post(`${base}/ai/sessions/${applying}/apply`, { changeSetId: staged.data.changeSetId, contentHash: staged.data.contentHash, confirmSource: 'ui_manual_apply' });
    expect(applied.status).toBe(200);
    expect(toWatching.count).toBe(1);
    // Once, by the apply itself; the Worker's message would have been a second drop and an RPC.
    expect(toApplying.count).toBe(1);
  });

  it('tells every live session after a Builder save', async () => {
    const { owner, base } = await supportDeskProject();
    const first = await stepSession(owner, base);
    const second = await stepSession(owner, base);
    const toFirst = await baselineDrops(first);
    const toSecond = await baselineDrops(second);
    const saved = await owner.put(`${base}/assets/file`, { path: 'assets/told.md', content: '# Told' });
    expect(saved.status).toBe(200);
    expect(toFirst.count).toBe(1);
    expect(toSecond.count).toBe(1);
  });
});
