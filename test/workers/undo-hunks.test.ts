/**
 * Keep and undo per file and per hunk through the real Worker and session object (issue 16): an
 * undo is a new version by that person (source `undo`) in the timeline that revokes older approvals, a hunk edited
 * meanwhile is refused, viewers cannot undo, an added file undone leaves the draft, every undo can
 * be undone, and keep marks are per person and change nothing.
 */
import { describe, expect, it } from 'vitest';
import { fileChangeHash, hunksOf } from '../../shared/ai/hunks.ts';
import { STEP, WF, connect, currentStep, stepChangeSet, stepSession, supportDeskProject } from './sessions.ts';
import { finalAnswer, send, useScriptedModel, waitFor } from './turns.ts';
import type { TestClient } from './client.ts';

const STEP_KEY = `step:${WF}/${STEP}`;
const ASSET_KEY = 'asset:assets/notes/new-note.md';

/** The step with two separate changes: its heading rewritten and a line added at the end. */
function twoHunks(markdown: string, top = 'TOP CHANGED', bottom = 'Added at the end.'): string {
  const lines = markdown.split('\n');
  const heading = lines.findIndex((l) => l.startsWith('# '));
  lines[heading] = `${lines[heading]} ${top}`;
  return `${lines.join('\n').replace(/\n*$/, '')}\n\n${bottom}\n`;
}

async function setup() {
  const project = await supportDeskProject();
  const { owner, base } = project;
  const baseline = (await currentStep(owner, base)).markdown;
  const sessionId = await stepSession(owner, base);
  const path = `${base}/ai/sessions/${sessionId}`;
  const stage = async (markdown: string, extraOps: unknown[] = [], by: TestClient = owner) => {
    const changeSet = stepChangeSet(markdown);
    const staged = await by.post(`${path}/stage`, {
      changeSet: { ...changeSet, operations: [...changeSet.operations, ...extraOps], impact: { objects: [STEP_KEY, ...(extraOps.length ? [ASSET_KEY] : [])] } },
    });
    expect(staged.status).toBe(200);
    return staged.data as { changeSetId: string; contentHash: string; version: number };
  };
  const file = async (key = STEP_KEY) => ((await owner.get(`${path}/changes`)).data.files as any[]).find((f) => f.key === key);
  return { ...project, baseline, sessionId, path, stage, file };
}

describe('undo one hunk', () => {
  it('reverts that hunk only, as a new version by that person that revokes approvals of the older one; the undo can be undone', async () => {
    const { owner, member, base, baseline, sessionId, path, stage, file } = await setup();
    const reviewer = await member('editor', 'Rita');
    const undoer = await member('editor', 'Uma');
    const v1 = await stage(twoHunks(baseline));
    expect((await owner.post(`${path}/validate`)).data.valid).toBe(true);
    const approved = await reviewer.post(`${path}/approvals`, { changeSetId: v1.changeSetId, contentHash: v1.contentHash });
    expect(approved.status, JSON.stringify(approved.error)).toBe(200);
    const watcher = await connect(owner, base, sessionId);

    const seen = await file();
    const hunks = hunksOf(seen.before, seen.after);
    expect(hunks).toHaveLength(2);
    const res = await undoer.post(`${path}/undo`, { objectKey: STEP_KEY, version: v1.version, hunk: { hash: hunks[0]!.hash, newStart: hunks[0]!.newStart } });
    expect(res.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data).toMatchObject({ objectKey: STEP_KEY, version: v1.version + 1, removed: false });

    const after = await file();
    const left = hunksOf(after.before, after.after);
    expect(left.map((h) => h.hash)).toEqual([hunks[1]!.hash]);
    expect(after.after).toBe(`${baseline.replace(/\n*$/, '')}\n\nAdded at the end.\n`);

    const undone = await watcher.event('change.undone');
    expect(undone).toMatchObject({ actor: { kind: 'user', userId: undoer.userId, name: 'Uma' }, payload: { objectKey: STEP_KEY, kind: 'undo', version: v1.version + 1, hunk: { newStart: hunks[0]!.newStart } } });
    const staged = await watcher.event('change.staged', (e) => e.payload.version === v1.version + 1 && e.actor.name === 'Uma');
    // An undo is its own kind of version, not a hand edit (the versions list says "Undo").
    expect(staged.payload.source).toBe('undo');
    await watcher.event('approval.revoked', (e) => e.payload.userId === reviewer.userId && e.payload.version === v1.version);
    const view = (await owner.get(path)).data;
    expect(view.latestSuggestion.version).toBe(v1.version + 1);
    expect(view.review.approvals).toEqual([]);

    // Nothing is lost: the undo itself undone brings the hunk back as yet another version.
    const again = await undoer.post(`${path}/undo/${res.data.undoId}/reapply`);
    expect(again.status).toBe(201);
    expect(again.data.version).toBe(v1.version + 2);
    expect((await file()).after).toBe(seen.after);
    await watcher.event('change.undone', (e) => e.payload.kind === 'reapply');
    const timeline = (await owner.get(`${path}/versions`)).data.versions as any[];
    expect(timeline.map((v) => [v.version, v.source, v.createdBy?.name])).toEqual([
      [v1.version, 'api', 'Owner'],
      [v1.version + 1, 'undo', 'Uma'],
      [v1.version + 2, 'undo', 'Uma'],
    ]);
    watcher.close();
  });

  it('refuses a hunk someone changed meanwhile, changing nothing', async () => {
    const { owner, baseline, path, stage, file } = await setup();
    await stage(twoHunks(baseline));
    const seen = await file();
    const [first] = hunksOf(seen.before, seen.after);
    // Someone rewrites that same line again before the undo arrives.
    const v2 = await stage(twoHunks(baseline, 'TOP CHANGED AGAIN'));
    const lastSeq = (await owner.get(path)).data.lastSeq;

    const res = await owner.post(`${path}/undo`, { objectKey: STEP_KEY, version: 1, hunk: { hash: first!.hash, newStart: first!.newStart } });
    expect(res.status).toBe(409);
    expect(res.error?.code).toBe('AI_HUNK_CHANGED');
    const now = (await owner.get(path)).data;
    expect(now.lastSeq).toBe(lastSeq);
    expect(now.latestSuggestion).toMatchObject({ version: v2.version, contentHash: v2.contentHash });
    expect((await file()).after).toBe(twoHunks(baseline, 'TOP CHANGED AGAIN'));

    // A whole-file undo of the change as it was is refused the same way.
    const whole = await owner.post(`${path}/undo`, { objectKey: STEP_KEY, version: 1, fileHash: fileChangeHash(seen.before, seen.after) });
    expect(whole.error?.code).toBe('AI_HUNK_CHANGED');
    expect((await file()).after).toBe(twoHunks(baseline, 'TOP CHANGED AGAIN'));
  });

  it('refuses viewers, and everyone while the AI works, changing nothing', async () => {
    const { owner, member, baseline, path, stage, file } = await setup();
    const viewer = await member('viewer');
    await stage(twoHunks(baseline));
    const seen = await file();
    const [first] = hunksOf(seen.before, seen.after);
    const body = { objectKey: STEP_KEY, version: 1, hunk: { hash: first!.hash, newStart: first!.newStart } };

    const refused = await viewer.post(`${path}/undo`, body);
    expect(refused.status).toBe(403);
    expect((await file()).after).toBe(seen.after);

    const scripted = await useScriptedModel(owner, [{ reply: finalAnswer('never sent', 'chat'), delayMs: 60_000 }]);
    expect((await send(owner, path, 'Look at the step.')).status).toBe(202);
    await waitFor(async () => (await scripted.pending()) === 1, 'the model request in flight');
    const during = await owner.post(`${path}/undo`, body);
    expect(during.status).toBe(409);
    expect(during.error?.code).toBe('AI_TURN_IN_PROGRESS');
    expect(during.error?.message).toMatch(/AI is still working/);
    expect((await file()).after).toBe(seen.after);
    await owner.post(`${path}/stop`);
  });
});

describe('undo one file', () => {
  it('removes an added file from the draft and keeps the other files', async () => {
    const { owner, baseline, path, stage, file } = await setup();
    await stage(twoHunks(baseline), [{ op: 'upsert', targetType: 'asset', target: { path: 'assets/notes/new-note.md' }, payload: { content: '# Note\n\nNew.\n' } }]);
    const added = await file(ASSET_KEY);
    expect(added.action).toBe('A');

    const res = await owner.post(`${path}/undo`, { objectKey: ASSET_KEY, version: 1, fileHash: fileChangeHash(added.before, added.after) });
    expect(res.status).toBe(201);
    expect(res.data.removed).toBe(true);
    const files = (await owner.get(`${path}/changes`)).data.files as any[];
    expect(files.map((f) => f.key)).toEqual([STEP_KEY]);
    expect((await owner.get(path)).data.latestSuggestion.files.map((f: any) => f.key)).toEqual([STEP_KEY]);
  });
});

describe('keep marks', () => {
  it('are stored per person, viewers included, and change no content, version or approval', async () => {
    const { owner, member, baseline, path, stage, file } = await setup();
    const viewer = await member('viewer');
    const v1 = await stage(twoHunks(baseline));
    const seen = await file();
    const [first] = hunksOf(seen.before, seen.after);
    const before = (await owner.get(path)).data;

    const kept = await owner.post(`${path}/keep-marks`, { objectKey: STEP_KEY, hash: first!.hash, scope: 'hunk', kept: true });
    expect(kept.status).toBe(200);
    expect(kept.data).toMatchObject([{ objectKey: STEP_KEY, hash: first!.hash, scope: 'hunk', version: v1.version }]);
    expect((await viewer.post(`${path}/keep-marks`, { objectKey: STEP_KEY, hash: fileChangeHash(seen.before, seen.after), scope: 'file', kept: true })).status).toBe(200);

    expect((await owner.get(`${path}/keep-marks`)).data.map((m: any) => m.hash)).toEqual([first!.hash]);
    expect((await viewer.get(`${path}/keep-marks`)).data.map((m: any) => m.scope)).toEqual(['file']);
    const after = (await owner.get(path)).data;
    expect(after.latestSuggestion).toMatchObject({ version: v1.version, contentHash: v1.contentHash });
    expect(after.lastSeq).toBe(before.lastSeq);
    expect((await owner.get(`${path}/changes`)).data.contentHash).toBe(v1.contentHash);

    expect((await owner.post(`${path}/keep-marks`, { objectKey: STEP_KEY, hash: first!.hash, scope: 'hunk', kept: false })).data).toEqual([]);
  });
});
