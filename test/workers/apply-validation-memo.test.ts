/**
 * Apply reuses the validation already computed for exactly the content it applies on exactly the
 * baseline it applies onto (issue 19), and validates again when either differs. Validation runs
 * are counted by wrapping the session core's `validateView` inside the real object.
 */
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import { STEP, WF, currentStep, stepChangeSet, stepSession, supportDeskProject } from './sessions.ts';
import { sessionObject } from './turns.ts';

/** Counts every validation the session object runs from now on. */
async function countValidations(sessionId: string): Promise<{ runs: number }> {
  const counter = { runs: 0 };
  await runInDurableObject(sessionObject(sessionId), (instance: AiSessionDurableObject) => {
    const core = instance.core;
    const validate = core.validateView.bind(core);
    core.validateView = (...args) => {
      counter.runs += 1;
      return validate(...args);
    };
  });
  return counter;
}

async function stagedAndValidated(note: string) {
  const { owner, base, projectId } = await supportDeskProject();
  const sessionId = await stepSession(owner, base);
  const path = `${base}/ai/sessions/${sessionId}`;
  const step = await currentStep(owner, base);
  const stepMarkdown = (line: string) => `${step.markdown}\n\n${line}\n`;
  const staged = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(stepMarkdown(note)) });
  expect(staged.status).toBe(200);
  const validated = await owner.post(`${path}/validate`, { changeSetId: staged.data.changeSetId });
  expect(validated.status).toBe(200);
  expect(validated.data.valid).toBe(true);
  const counter = await countValidations(sessionId);
  const apply = (changeSetId: string, contentHash: string) => owner.post(`${path}/apply`, { changeSetId, contentHash, confirmSource: 'ui_manual_apply' });
  return { owner, base, projectId, sessionId, path, staged, counter, apply, stepMarkdown };
}

describe('apply reuses a validation of the same content on the same baseline', () => {
  it('does not validate again when the version was validated on the baseline it applies onto', async () => {
    const s = await stagedAndValidated('Cite the policy section, reviewed.');
    const applied = await s.apply(s.staged.data.changeSetId, s.staged.data.contentHash);
    expect(applied.status).toBe(200);
    expect(applied.data.applied).toBe(true);
    expect(s.counter.runs).toBe(0);
    // What was applied is what was validated: the step reads back with the staged text.
    const step = await s.owner.get(`${s.base}/workflows/${WF}/steps/${STEP}`);
    expect(JSON.stringify(step.data)).toContain('Cite the policy section, reviewed.');
  });

  it('validates again when the baseline moved since (another scope saved in between)', async () => {
    const s = await stagedAndValidated('Cite the policy section, then the baseline moves.');
    const saved = await s.owner.put(`${s.base}/assets/file`, { path: 'assets/moved-baseline.md', content: '# Moved' });
    expect(saved.status).toBe(200);
    const applied = await s.apply(s.staged.data.changeSetId, s.staged.data.contentHash);
    expect(applied.status).toBe(200);
    expect(s.counter.runs).toBe(1);
  });

  it('validates again when the content changed since the last validation', async () => {
    const s = await stagedAndValidated('Cite the policy section, first draft.');
    const restaged = await s.owner.post(`${s.path}/stage`, { changeSet: stepChangeSet(s.stepMarkdown('Cite the policy section, second draft.')) });
    expect(restaged.status).toBe(200);
    expect(restaged.data.contentHash).not.toBe(s.staged.data.contentHash);
    const applied = await s.apply(restaged.data.changeSetId, restaged.data.contentHash);
    expect(applied.status).toBe(200);
    expect(s.counter.runs).toBe(1);
  });

  it('refuses a version whose kept validation failed, without validating it again', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const staged = await owner.post(`${path}/stage`, { changeSet: stepChangeSet('---\nid: wrong-id\n---\n\nno title\n') });
    expect(staged.status).toBe(200);
    const validated = await owner.post(`${path}/validate`, { changeSetId: staged.data.changeSetId });
    expect(validated.data.valid).toBe(false);
    const counter = await countValidations(sessionId);
    const applied = await owner.post(`${path}/apply`, { changeSetId: staged.data.changeSetId, contentHash: staged.data.contentHash, confirmSource: 'ui_manual_apply' });
    expect(applied.status).toBe(422);
    expect(applied.error?.code).toBe('AI_VALIDATION_FAILED');
    expect(counter.runs).toBe(0);
  });
});
