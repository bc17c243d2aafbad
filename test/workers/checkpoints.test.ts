/**
 * Checkpoints of the draft through the real Worker and session object: each version (a stage, a
 * co-edit batch, a restore) stores its files content-addressed; two versions compare as texts; a
 * restore brings a checkpoint back as a new version that revokes approvals and applies exactly.
 */
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import { STEP, WF, YClient, connect, currentStep, stepChangeSet, stepSession, supportDeskProject } from './sessions.ts';
import { finalAnswer, objectRows, send, sessionObject, useScriptedModel, waitFor } from './turns.ts';

const STEP_KEY = `step:${WF}/${STEP}`;
const NOTE_PATH = 'assets/policies/receipts.md';
const NOTE_KEY = `asset:${NOTE_PATH}`;

async function stepText(client: Parameters<typeof currentStep>[0], base: string, marker: string) {
  const step = await currentStep(client, base);
  return step.markdown.replace('3. Set `variables.missingDetails`', `3. ${marker}\n4. Set \`variables.missingDetails\``);
}

/** A change set that writes the step and, optionally, the receipts note (an asset the package lacks). */
function changeSet(step: string | null, note: string | null) {
  const operations = [
    ...(step !== null ? [{ op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId: STEP }, payload: { stepMarkdown: step } }] : []),
    ...(note !== null ? [{ op: 'upsert', targetType: 'asset', target: { path: NOTE_PATH }, payload: { content: note } }] : []),
  ];
  return { ...stepChangeSet(''), operations, impact: { objects: [...(step !== null ? [STEP_KEY] : []), ...(note !== null ? [NOTE_KEY] : [])] } };
}

/** A session with three versions: v1 the step; v2 a new step text and the note; v3 a new note, the step unchanged. */
async function threeVersions() {
  const project = await supportDeskProject();
  const { owner, base } = project;
  const sessionId = await stepSession(owner, base);
  const path = `${base}/ai/sessions/${sessionId}`;
  const texts = {
    step1: await stepText(owner, base, 'Cite the policy section.'),
    step2: await stepText(owner, base, 'Name the policy section and its owner.'),
    note2: '# Receipts\n\nKeep every receipt.\n',
    note3: '# Receipts\n\nKeep every receipt for seven years.\n',
  };
  const staged = [];
  for (const cs of [changeSet(texts.step1, null), changeSet(texts.step2, texts.note2), changeSet(null, texts.note3)]) {
    const res = await owner.post(`${path}/stage`, { changeSet: cs });
    expect(res.status).toBe(200);
    staged.push(res.data as { changeSetId: string; version: number; contentHash: string });
  }
  return { ...project, sessionId, path, texts, staged };
}

async function changedTexts(client: Parameters<typeof currentStep>[0], path: string): Promise<Record<string, string | null>> {
  const res = await client.get(`${path}/changes`);
  expect(res.status).toBe(200);
  return Object.fromEntries(res.data.files.map((f: { key: string; after: string | null }) => [f.key, f.after]));
}

describe('checkpoints', () => {
  it('stores every stage content-addressed: a file unchanged between versions is one blob row', async () => {
    const { owner, path, sessionId, texts } = await threeVersions();
    const checkpoints = await objectRows(sessionId, 'SELECT version, seq, files FROM checkpoints ORDER BY version');
    expect(checkpoints.map((c) => c.version)).toEqual([1, 2, 3]);
    const files = checkpoints.map((c) => JSON.parse(String(c.files)) as Record<string, { hash: string }>);
    expect(Object.keys(files[0]!)).toEqual([STEP_KEY]);
    expect(Object.keys(files[2]!).sort()).toEqual([NOTE_KEY, STEP_KEY]);
    expect(files[2]![STEP_KEY]!.hash).toBe(files[1]![STEP_KEY]!.hash);
    // step1, step2, note2, note3: four texts, four rows (the step of v3 reuses v2's).
    const blobs = await objectRows(sessionId, 'SELECT text FROM checkpoint_blobs ORDER BY text');
    expect(blobs.map((b) => b.text).sort()).toEqual([texts.step1, texts.step2, texts.note2, texts.note3].sort());

    // Each checkpoint is linked to its version's change.staged event.
    const events = await objectRows(sessionId, "SELECT seq, json_extract(payload, '$.version') AS version FROM events WHERE type = 'change.staged' ORDER BY seq");
    expect(checkpoints.map((c) => [c.version, c.seq])).toEqual(events.map((e) => [e.version, e.seq]));
    const timeline = await owner.get(`${path}/versions`);
    expect(timeline.status).toBe(200);
    expect(timeline.data.versions.map((v: any) => [v.version, v.source, v.seq, v.checkpoint, v.createdBy?.name])).toEqual(
      events.map((e) => [e.version, 'api', e.seq, true, 'Owner']),
    );
  });

  it('compares two versions, and a version with the stored package, as the texts of each file', async () => {
    const { owner, base, path, texts, member } = await threeVersions();
    const stored = (await currentStep(owner, base)).markdown;
    const viewer = await member('viewer');
    const compared = await viewer.get(`${path}/versions/compare?from=1&to=3`);
    expect(compared.status).toBe(200);
    expect(compared.data).toEqual({
      from: 1,
      to: 3,
      files: [
        { key: NOTE_KEY, action: 'A', path: NOTE_PATH, before: null, after: texts.note3 },
        { key: STEP_KEY, action: 'M', path: expect.any(String), before: texts.step1, after: texts.step2 },
      ],
    });
    const againstBaseline = await viewer.get(`${path}/versions/compare?from=baseline&to=1`);
    expect(againstBaseline.data.files).toEqual([{ key: STEP_KEY, action: 'M', path: expect.any(String), before: stored, after: texts.step1 }]);
    expect((await viewer.get(`${path}/versions/compare?from=1&to=9`)).error?.code).toBe('AI_CHECKPOINT_NOT_FOUND');
    expect((await viewer.get(`${path}/versions/compare?from=one&to=2`)).error?.code).toBe('VALIDATION_FAILED');
  });

  it('restores checkpoint 1 exactly as a new version: the note added later leaves the draft and its Y.Doc', async () => {
    const { owner, path, sessionId, texts } = await threeVersions();
    const restored = await owner.post(`${path}/versions/1/restore`);
    expect(restored.status).toBe(200);
    expect(restored.data).toMatchObject({ version: 4, restoredFrom: 1 });
    expect(await changedTexts(owner, path)).toEqual({ [STEP_KEY]: texts.step1 });
    const keys = await runInDurableObject(sessionObject(sessionId), (instance: AiSessionDurableObject) => instance.core.overlay.entries().map((e) => e.key));
    expect(keys).toEqual([STEP_KEY]);

    const timeline = (await owner.get(`${path}/versions`)).data.versions;
    expect(timeline.at(-1)).toMatchObject({ version: 4, source: 'restore', restoredFrom: 1, createdBy: { userId: owner.userId, name: 'Owner' }, checkpoint: true });
    const state = (await owner.get(path)).data;
    expect(state.latestSuggestion).toMatchObject({ version: 4, source: 'restore' });
    // The same content as version 1, so the same content hash.
    expect(restored.data.contentHash).toBe(timeline[0].contentHash);
    // What the restore replaced stays restorable.
    const back = await owner.post(`${path}/versions/3/restore`);
    expect(back.data.version).toBe(5);
    expect(await changedTexts(owner, path)).toEqual({ [STEP_KEY]: texts.step2, [NOTE_KEY]: texts.note3 });
  });

  it('does not count approvals of older versions after a restore', async () => {
    const project = await supportDeskProject();
    const { owner, base, member } = project;
    expect((await owner.patch(base, { requiredApprovals: 1 })).status).toBe(200);
    const reviewer = await member('editor', 'Rita');
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const v1 = (await owner.post(`${path}/stage`, { changeSet: changeSet(await stepText(owner, base, 'One.'), null) })).data;
    expect((await owner.post(`${path}/validate`)).data.valid).toBe(true);
    expect((await reviewer.post(`${path}/approvals`, { changeSetId: v1.changeSetId, contentHash: v1.contentHash })).status).toBe(200);
    const v2 = (await owner.post(`${path}/stage`, { changeSet: changeSet(await stepText(owner, base, 'Two.'), null) })).data;
    expect((await owner.post(`${path}/validate`)).data.valid).toBe(true);
    expect((await reviewer.post(`${path}/approvals`, { changeSetId: v2.changeSetId, contentHash: v2.contentHash })).status).toBe(200);
    expect((await owner.get(path)).data.review.countedApprovals).toBe(1);

    const restored = await owner.post(`${path}/versions/1/restore`);
    expect(restored.status).toBe(200);
    expect(restored.data.contentHash).toBe(v1.contentHash);
    const review = (await owner.get(path)).data.review;
    expect(review).toMatchObject({ approvals: [], countedApprovals: 0, block: { code: 'AI_APPROVALS_REQUIRED' } });
    const apply = await owner.post(`${path}/apply`, { changeSetId: restored.data.changeSetId, contentHash: restored.data.contentHash, confirmSource: 'ui_manual_apply' });
    expect(apply.error?.code).toBe('AI_APPROVALS_REQUIRED');
  });

  it('applies exactly the restored content', async () => {
    const { owner, base, path, projectId, texts } = await threeVersions();
    const restored = (await owner.post(`${path}/versions/1/restore`)).data;
    const applied = await owner.post(`${path}/apply`, { changeSetId: restored.changeSetId, contentHash: restored.contentHash, confirmSource: 'ui_manual_apply' });
    expect(applied.status).toBe(200);
    const step = await env.DB.prepare('SELECT markdown FROM workflow_steps WHERE project_id = ? AND workflow_id = ? AND node_id = ?').bind(projectId, WF, STEP).first();
    expect(step).toEqual({ markdown: texts.step1 });
    const note = await env.DB.prepare('SELECT count(*) AS n FROM assets WHERE project_id = ? AND path = ?').bind(projectId, NOTE_PATH).first();
    expect(note).toEqual({ n: 0 });
    expect((await currentStep(owner, base)).markdown).toBe(texts.step1);
  });

  it('refuses a restore while a turn runs, and a viewer\'s restore, leaving the draft as it was', async () => {
    const { owner, path, member, texts } = await threeVersions();
    const viewer = await member('viewer');
    const byViewer = await viewer.post(`${path}/versions/1/restore`);
    expect(byViewer.status).toBe(403);
    expect((await viewer.get(`${path}/versions`)).status).toBe(200);

    const scripted = await useScriptedModel(owner, [{ reply: finalAnswer('never sent', 'chat'), delayMs: 60_000 }]);
    const turn = await send(owner, path, 'Tighten the step.');
    expect(turn.status).toBe(202);
    await waitFor(async () => (await scripted.pending()) === 1, 'the model request in flight');
    const during = await owner.post(`${path}/versions/1/restore`);
    expect(during.status).toBe(409);
    expect(during.error).toMatchObject({ code: 'AI_RESTORE_TURN_RUNNING', turnId: turn.data.turnId, turnStatus: 'running' });
    expect(await changedTexts(owner, path)).toEqual({ [STEP_KEY]: texts.step2, [NOTE_KEY]: texts.note3 });
    expect((await owner.get(`${path}/versions`)).data.versions).toHaveLength(3);
    expect((await owner.post(`${path}/stop`)).status).toBe(200);
  });

  it('makes a checkpoint of a batch of co-edits', async () => {
    const { owner, base, member } = await supportDeskProject();
    const editor = await member('editor');
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const watcher = await connect(owner, base, sessionId);
    await owner.post(`${path}/stage`, { changeSet: changeSet(await stepText(owner, base, 'Cite the policy section.'), null) });

    const y = new YClient(await connect(editor, base, sessionId));
    const text = await y.sync(() => y.text(STEP_KEY), 'the staged step in the Yjs doc');
    text.insert(0, '<!-- one -->\n');
    text.insert(0, '<!-- two -->\n');
    const edited = await watcher.event('change.staged', (e) => e.payload.source === 'edit');
    const edit = (await owner.get(`${path}/versions`)).data.versions.find((v: any) => v.version === edited.payload.version);
    expect(edit).toMatchObject({ source: 'edit', seq: edited.seq, checkpoint: true, createdBy: { userId: editor.userId, name: 'Edith' } });
    const compared = await owner.get(`${path}/versions/compare?from=1&to=${edited.payload.version}`);
    expect(compared.data.files).toHaveLength(1);
    expect(compared.data.files[0].after).toBe(`<!-- two -->\n<!-- one -->\n${compared.data.files[0].before}`);
    watcher.close();
  });
});
