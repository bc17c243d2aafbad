/**
 * The sessions page's list (GET …/ai/sessions) through the real Worker and D1: each row's state
 * (active, applied, cancelled), starter, files changed, applied revision and who ended it; the
 * filters (state, target type, person); and the final diff of an applied session (…/applied).
 */
import { describe, expect, it } from 'vitest';
import { STEP, WF, currentStep, stepChangeSet, stepSession, supportDeskProject } from './sessions.ts';

const STEP_KEY = `step:${WF}/${STEP}`;

/** Owner applies a step session; the editor cancels a workflow session and stages in another step session. */
async function threeSessions() {
  const project = await supportDeskProject();
  const { owner, base } = project;
  const editor = await project.member('editor', 'Edith');

  const applied = await stepSession(owner, base);
  const step = await currentStep(owner, base);
  const markdown = `${step.markdown}\n\nCite the policy section for every violation.\n`;
  const staged = await owner.post(`${base}/ai/sessions/${applied}/stage`, { changeSet: stepChangeSet(markdown) });
  expect(staged.status).toBe(200);
  const validated = await owner.post(`${base}/ai/sessions/${applied}/validate`, { changeSetId: staged.data.changeSetId });
  expect(validated.data.valid).toBe(true);
  const done = await owner.post(`${base}/ai/sessions/${applied}/apply`, {
    changeSetId: staged.data.changeSetId,
    contentHash: staged.data.contentHash,
    confirmSource: 'ui_manual_apply',
  });
  expect(done.status).toBe(200);

  const cancelledRes = await editor.post(`${base}/ai/sessions`, { targetType: 'workflow', workflowId: WF, mode: 'optimize' });
  const cancelled = cancelledRes.data.sessionId as string;
  expect((await editor.post(`${base}/ai/sessions/${cancelled}/cancel`)).status).toBe(200);

  const active = await stepSession(editor, base);
  expect((await editor.post(`${base}/ai/sessions/${active}/stage`, { changeSet: stepChangeSet(`${markdown}More.\n`) })).status).toBe(200);

  return { ...project, editor, step, markdown, ids: { applied, cancelled, active }, newRevision: done.data.newRevision.workflowRevision as number };
}

describe('the sessions list', () => {
  it('says how each session ended up, who started it, what it changed and the revision it made', async () => {
    const { owner, editor, base, ids, step, newRevision } = await threeSessions();
    const list = await owner.get(`${base}/ai/sessions`);
    expect(list.status).toBe(200);
    const byId = new Map<string, any>(list.data.sessions.map((s: any) => [s.sessionId, s]));
    expect(list.data.sessions.map((s: any) => s.sessionId)).toEqual([ids.active, ids.cancelled, ids.applied]);

    expect(newRevision).toBe(step.revision + 1);
    expect(byId.get(ids.applied)).toMatchObject({
      status: 'active',
      state: 'applied',
      createdBy: owner.userId,
      createdByName: 'Owner',
      filesChanged: 1,
      applied: { revision: newRevision, objectKey: STEP_KEY, by: 'Owner' },
      endedAt: null,
      endedBy: null,
    });
    expect(byId.get(ids.applied).applied.changeSetId).toMatch(/^cs_/);
    expect(byId.get(ids.cancelled)).toMatchObject({ status: 'cancelled', state: 'cancelled', createdByName: 'Edith', filesChanged: 0, applied: null, endedBy: 'Edith' });
    expect(typeof byId.get(ids.cancelled).endedAt).toBe('string');
    expect(byId.get(ids.active)).toMatchObject({ status: 'active', state: 'active', createdBy: editor.userId, filesChanged: 1, applied: null, endedAt: null });
  });

  it('filters by state, target type and person, alone and together; the workbench still finds active sessions by status', async () => {
    const { owner, editor, base, ids } = await threeSessions();
    const idsOf = async (query: string) => {
      const res = await owner.get(`${base}/ai/sessions?${query}`);
      expect(res.status).toBe(200);
      return res.data.sessions.map((s: any) => s.sessionId);
    };
    expect(await idsOf('state=applied')).toEqual([ids.applied]);
    // An applied session is no longer listed as active on the sessions page…
    expect(await idsOf('state=active')).toEqual([ids.active]);
    expect(await idsOf('state=cancelled')).toEqual([ids.cancelled]);
    expect(await idsOf('state=failed')).toEqual([]);
    // …but its stored status is still active, so the workbench keeps joining it.
    expect(await idsOf('status=active')).toEqual([ids.active, ids.applied]);
    expect(await idsOf('targetType=workflow')).toEqual([ids.cancelled]);
    expect(await idsOf('targetType=step')).toEqual([ids.active, ids.applied]);
    expect(await idsOf(`createdBy=${editor.userId}`)).toEqual([ids.active, ids.cancelled]);
    expect(await idsOf(`createdBy=${owner.userId}`)).toEqual([ids.applied]);
    expect(await idsOf(`createdBy=${editor.userId}&targetType=step`)).toEqual([ids.active]);
    expect(await idsOf(`createdBy=${editor.userId}&state=applied`)).toEqual([]);
  });

  it('refuses an unknown state or target type with a validation error', async () => {
    const { owner, base } = await supportDeskProject();
    expect((await owner.get(`${base}/ai/sessions?state=merged`)).error?.code).toBe('VALIDATION_FAILED');
    expect((await owner.get(`${base}/ai/sessions?targetType=database`)).error?.code).toBe('VALIDATION_FAILED');
  });

  it("lets a viewer read an applied session's final diff, and no one read another project's", async () => {
    const { base, ids, step, markdown, member } = await threeSessions();
    const viewer = await member('viewer', 'Victor');
    const res = await viewer.get(`${base}/ai/sessions/${ids.applied}/applied`);
    expect(res.status).toBe(200);
    expect(res.data.files).toEqual([{ key: STEP_KEY, action: 'M', path: step.path, before: step.markdown, after: markdown }]);
    expect((await viewer.get(`${base}/ai/sessions/${ids.active}/applied`)).data.files).toEqual([]);

    const other = await supportDeskProject();
    const foreign = await other.owner.get(`${other.base}/ai/sessions/${ids.applied}/applied`);
    expect(foreign.error?.code).toBe('AI_SESSION_NOT_FOUND');
  });
});

describe('the baseline under a draft', () => {
  it('lists the staged files whose baseline moved since staging, and the revisions the diff was read at', async () => {
    const { owner, base, member } = await supportDeskProject();
    const editor = await member('editor');
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const original = await currentStep(owner, base);
    expect((await owner.post(`${path}/stage`, { changeSet: stepChangeSet(`${original.markdown}\nMore.\n`) })).status).toBe(200);

    const before = await owner.get(`${path}/changes`);
    expect(before.data.baseline.moved).toEqual([]);
    expect(before.data.baseline.revisionBase.workflowRevision).toBe(original.revision);

    // Someone saves the same step in the Builder while the draft is staged.
    expect((await editor.put(`${base}/workflows/${WF}/steps/${STEP}`, { markdown: `${original.markdown}\nSaved by hand.\n` })).status).toBe(200);
    const after = await owner.get(`${path}/changes`);
    expect(after.data.baseline.moved).toEqual([{ key: STEP_KEY, path: original.path, baseRevision: original.revision, currentRevision: original.revision + 1 }]);
    expect(after.data.baseline.revisionBase.workflowRevision).toBe(original.revision + 1);
  });
});
