/**
 * Moving a staged draft onto a new baseline through the real Worker, D1 and session object: a save
 * in the Builder on other lines merges cleanly into one new version (older approvals stop counting,
 * Apply with the new revisionBase writes both edits); a save on the same lines comes back as a
 * conflict and a person's resolution writes it; viewers, a running turn, unknown files, stale and
 * oversized resolutions are refused and change nothing.
 */
import { describe, expect, it } from 'vitest';
import { STEP, WF, currentStep, stepChangeSet, stepSession, supportDeskProject } from './sessions.ts';
import { finalAnswer, objectRows, send, useScriptedModel, waitFor } from './turns.ts';

const STEP_KEY = `step:${WF}/${STEP}`;
const GOAL = 'Classify the ticket with the categories of the support policy.';
const SEVERITY = '2. Give the ticket a category and a severity from the policy.';
const COMPLETION = '- Add `classify-issue` to `stepsCompleted` once;';

/** A project needing one approval, a step session with the owner's draft staged, a reviewer and an editor who saves in the Builder. */
async function rebaseSetup(draft: (markdown: string) => string) {
  const project = await supportDeskProject();
  const { owner, base, member } = project;
  expect((await owner.patch(base, { requiredApprovals: 1 })).status).toBe(200);
  const reviewer = await member('editor', 'Rita');
  const saver = await member('editor', 'Edith');
  const viewer = await member('viewer', 'Victor');
  const sessionId = await stepSession(owner, base);
  const path = `${base}/ai/sessions/${sessionId}`;
  const original = await currentStep(owner, base);
  const drafted = draft(original.markdown);
  const staged = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(drafted) });
  expect(staged.status).toBe(200);
  const v1 = { changeSetId: staged.data.changeSetId as string, contentHash: staged.data.contentHash as string };
  expect((await owner.post(`${path}/validate`)).data.valid).toBe(true);
  const saveInBuilder = async (edit: (markdown: string) => string) => {
    const saved = await saver.put(`${base}/workflows/${WF}/steps/${STEP}`, { markdown: edit(original.markdown) });
    expect(saved.status).toBe(200);
    return edit(original.markdown);
  };
  return { ...project, reviewer, saver, viewer, sessionId, path, original, drafted, v1, saveInBuilder };
}

const draftGoal = (markdown: string) => markdown.replace(GOAL, `${GOAL} Quote the policy section you used.`);

describe('moving the draft onto a new baseline', () => {
  it('merges a save on other lines into one new version: older approvals stop counting, and Apply writes both edits', async () => {
    const { owner, reviewer, path, base, sessionId, original, v1, saveInBuilder } = await rebaseSetup(draftGoal);
    expect((await reviewer.post(`${path}/approvals`, v1)).error).toBeNull();
    expect((await owner.get(path)).data.review.countedApprovals).toBe(1);
    await saveInBuilder((m) => m.replace(COMPLETION, `${COMPLETION} say which category was chosen;`));
    const moved = await owner.get(`${path}/changes`);
    expect(moved.data.baseline.moved).toEqual([{ key: STEP_KEY, path: original.path, baseRevision: original.revision, currentRevision: original.revision + 1 }]);

    const rebased = await owner.post(`${path}/rebase`);
    expect(rebased.status).toBe(200);
    expect(rebased.data.files).toEqual([
      { key: STEP_KEY, path: original.path, outcome: 'merged', baseRevision: original.revision, currentRevision: original.revision + 1 },
    ]);
    expect(rebased.data.version).toBe(2);
    expect(rebased.data.changeSetId).not.toBe(v1.changeSetId);

    const changes = await owner.get(`${path}/changes`);
    const after = changes.data.files[0].after as string;
    expect(after).toContain('Quote the policy section you used.');
    expect(after).toContain('say which category was chosen;');
    expect(changes.data.baseline.moved).toEqual([]);
    expect(changes.data.changeSetId).toBe(rebased.data.changeSetId);
    expect(changes.data.baseline.revisionBase.workflowRevision).toBe(original.revision + 1);

    // The version is in the event log as the person's, like any edit, and the older approval no longer counts.
    const staged = await objectRows(sessionId, "SELECT actor, payload FROM events WHERE type = 'change.staged' ORDER BY seq");
    expect(staged).toHaveLength(2);
    expect(JSON.parse(String(staged[1]!.actor))).toMatchObject({ kind: 'user', userId: owner.userId });
    expect(JSON.parse(String(staged[1]!.payload))).toMatchObject({ version: 2, source: 'rebase', files: [{ key: STEP_KEY, action: 'M' }] });
    const review = (await owner.get(path)).data.review;
    expect(review).toMatchObject({ countedApprovals: 0, block: { code: 'AI_APPROVALS_REQUIRED' } });
    const stale = await owner.post(`${path}/apply`, { ...v1, confirmSource: 'ui_manual_apply' });
    expect(stale.error?.code).toBe('AI_CHANGESET_STALE');

    const v2 = { changeSetId: rebased.data.changeSetId as string, contentHash: rebased.data.contentHash as string };
    expect((await reviewer.post(`${path}/approvals`, v2)).error).toBeNull();
    const applied = await owner.post(`${path}/apply`, { ...v2, revisionBase: changes.data.baseline.revisionBase, confirmSource: 'ui_manual_apply' });
    expect(applied.error).toBeNull();
    expect(applied.status).toBe(200);
    expect(applied.data.warnings).toEqual([]);
    const step = await currentStep(owner, base);
    expect(step.markdown).toBe(after);
    expect(step.revision).toBe(original.revision + 2);
  });

  it('returns a save on the same lines as a conflict and leaves the file; the resolution writes it and moves its baseline', async () => {
    const draftSeverity = (m: string) => m.replace(SEVERITY, '2. Give the ticket a category, a severity and an owner from the policy.');
    const { owner, path, original, drafted, saveInBuilder } = await rebaseSetup(draftSeverity);
    const saved = await saveInBuilder((m) => m.replace(SEVERITY, '2. Give the ticket a category and a priority from the policy.').replace(COMPLETION, `${COMPLETION} (done)`));

    const rebased = await owner.post(`${path}/rebase`);
    expect(rebased.status).toBe(200);
    expect(rebased.data).toMatchObject({ changeSetId: null, version: null });
    const [file] = rebased.data.files;
    expect(file).toMatchObject({ key: STEP_KEY, outcome: 'conflict', kind: 'lines', currentRevision: original.revision + 1, ours: drafted, theirs: saved });
    const conflicts = file.chunks.filter((c: any) => c.kind === 'conflict');
    expect(conflicts).toEqual([
      {
        kind: 'conflict',
        base: `${SEVERITY}\n`,
        ours: '2. Give the ticket a category, a severity and an owner from the policy.\n',
        theirs: '2. Give the ticket a category and a priority from the policy.\n',
      },
    ]);
    // The clean parts carry the Builder's other edit; the conflict sits between markers.
    expect(file.merged).toContain(`${COMPLETION} (done)`);
    expect(file.merged).toContain('<<<<<<< draft\n2. Give the ticket a category, a severity and an owner from the policy.\n=======\n');

    const untouched = await owner.get(`${path}/changes`);
    expect(untouched.data.files[0].after).toBe(drafted);
    expect(untouched.data.version).toBe(1);
    expect(untouched.data.baseline.moved.map((m: any) => m.key)).toEqual([STEP_KEY]);

    const resolution = saved.replace('2. Give the ticket a category and a priority from the policy.', '2. Give the ticket a category, a priority and an owner from the policy.');
    const stale = await owner.post(`${path}/rebase/resolve`, { objectKey: STEP_KEY, content: resolution, baseRevision: original.revision });
    expect(stale.status).toBe(409);
    expect(stale.error?.code).toBe('AI_REBASE_STALE');

    const resolved = await owner.post(`${path}/rebase/resolve`, { objectKey: STEP_KEY, content: resolution, baseRevision: file.currentRevision });
    expect(resolved.status).toBe(200);
    expect(resolved.data).toMatchObject({ key: STEP_KEY, version: 2, valid: true });
    const changes = await owner.get(`${path}/changes`);
    expect(changes.data.files[0].after).toBe(resolution);
    expect(changes.data.baseline.moved).toEqual([]);
    expect((await owner.get(path)).data.latestSuggestion).toMatchObject({ version: 2, source: 'rebase' });

    const again = await owner.post(`${path}/rebase/resolve`, { objectKey: STEP_KEY, content: drafted, baseRevision: file.currentRevision });
    expect(again.error?.code).toBe('AI_REBASE_FILE_NOT_MOVED');
    expect((await owner.post(`${path}/rebase`)).error?.code).toBe('AI_REBASE_NOT_NEEDED');
  });

  it('refuses a viewer, an unknown file and an oversized resolution, changing nothing', async () => {
    const draftSeverity = (m: string) => m.replace(SEVERITY, `${SEVERITY} Explain it.`);
    const { owner, viewer, path, original, drafted, saveInBuilder } = await rebaseSetup(draftSeverity);
    await saveInBuilder((m) => m.replace(SEVERITY, `${SEVERITY} Saved.`));
    const before = await owner.get(path);

    const byViewer = await viewer.post(`${path}/rebase`);
    expect(byViewer.status).toBe(403);
    const viewerResolve = await viewer.post(`${path}/rebase/resolve`, { objectKey: STEP_KEY, content: 'x', baseRevision: original.revision + 1 });
    expect(viewerResolve.status).toBe(403);

    const unknown = await owner.post(`${path}/rebase/resolve`, { objectKey: `step:${WF}/decide-details`, content: 'x', baseRevision: original.revision + 1 });
    expect(unknown.status).toBe(409);
    expect(unknown.error?.code).toBe('AI_REBASE_FILE_NOT_MOVED');

    // 400 000 three-byte characters: under the character cap and the JSON body cap, over the byte cap.
    const huge = `${drafted}${'€'.repeat(200_000)}`;
    const oversized = await owner.post(`${path}/rebase/resolve`, { objectKey: STEP_KEY, content: huge, baseRevision: original.revision + 1 });
    expect(oversized.status).toBe(413);
    expect(oversized.error?.code).toBe('AI_REBASE_TOO_LARGE');

    const after = await owner.get(path);
    expect(after.data.lastSeq).toBe(before.data.lastSeq);
    const changes = await owner.get(`${path}/changes`);
    expect(changes.data.files[0].after).toBe(drafted);
    expect(changes.data.baseline.moved.map((m: any) => m.key)).toEqual([STEP_KEY]);
  });
});

describe('moving the draft while the AI works', () => {
  it('is refused with AI_TURN_IN_PROGRESS while a turn runs, and the draft stays as it was', async () => {
    const { owner, path, drafted, saveInBuilder } = await rebaseSetup(draftGoal);
    await saveInBuilder((m) => m.replace(COMPLETION, `${COMPLETION} (saved)`));
    const scripted = await useScriptedModel(owner, []);
    await scripted.queue({ reply: finalAnswer('never sent', 'chat'), delayMs: 60_000 });
    const accepted = await send(owner, path, 'Tighten the step.');
    expect(accepted.status).toBe(202);
    await waitFor(async () => (await scripted.pending()) === 1, 'the model request in flight');

    const refused = await owner.post(`${path}/rebase`);
    expect(refused.status).toBe(409);
    expect(refused.error).toMatchObject({ code: 'AI_TURN_IN_PROGRESS', turnId: accepted.data.turnId });
    const changes = await owner.get(`${path}/changes`);
    expect(changes.data.files[0].after).toBe(drafted);
    expect(changes.data.version).toBe(1);
    expect((await owner.post(`${path}/stop`)).status).toBe(200);
  });
});
