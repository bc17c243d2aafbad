/**
 * Approvals and requests for changes through the real Worker and session object: who may approve
 * (not the people who asked for or edited the change), approvals bound to the content hash, the
 * "request changes" that blocks Apply until approved, withdrawn or dismissed, and the owner's
 * recorded override; the audit log keeps the owner's decisions.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { STEP, WF, connect, currentStep, stepChangeSet, stepSession, supportDeskProject } from './sessions.ts';
import { auditRows, finalAnswer, send, turnEnd, useScriptedModel } from './turns.ts';

async function draft(client: Parameters<typeof currentStep>[0], base: string, marker: string) {
  const step = await currentStep(client, base);
  return step.markdown.replace('3. Set `variables.missingDetails`', `3. ${marker}\n4. Set \`variables.missingDetails\``);
}

/** A project requiring `required` approvals, a session the owner started, and a validated first version. */
async function reviewSetup(required: number) {
  const project = await supportDeskProject();
  const { owner, base } = project;
  expect((await owner.patch(base, { requiredApprovals: required })).status).toBe(200);
  const sessionId = await stepSession(owner, base);
  const path = `${base}/ai/sessions/${sessionId}`;
  const stage = async (marker: string, by = owner) => {
    const staged = await by.post(`${path}/stage`, { changeSet: stepChangeSet(await draft(owner, base, marker)) });
    expect(staged.status).toBe(200);
    expect((await by.post(`${path}/validate`)).data.valid).toBe(true);
    return { changeSetId: staged.data.changeSetId as string, contentHash: staged.data.contentHash as string };
  };
  const apply = (v: { changeSetId: string; contentHash: string }) => owner.post(`${path}/apply`, { ...v, confirmSource: 'ui_manual_apply' });
  return { ...project, sessionId, path, stage, apply };
}

describe('approvals', () => {
  it('refuse the people who asked for or edited the change, and an old hash, changing nothing', async () => {
    const { owner, base, member, path, sessionId, stage } = await reviewSetup(1);
    const stager = await member('editor', 'Stan');
    const asker = await member('editor', 'Asha');
    const reviewer = await member('editor', 'Rita');
    const viewer = await member('viewer');
    await useScriptedModel(asker, [finalAnswer('Nothing to change there.', 'chat')]);
    const watcher = await connect(owner, base, sessionId);
    const turn = await send(asker, path, 'Is the step clear enough?');
    await turnEnd(watcher, turn.data.turnId);

    const v1 = await stage('Cite the policy section.');
    const v2 = await stage('Name the policy section.', stager);
    const before = await owner.get(path);
    expect(before.data.review.authors.sort()).toEqual([owner.userId, stager.userId, asker.userId].sort());

    for (const [who, client] of [['creator', owner], ['stager', stager], ['asker', asker]] as const) {
      const refused = await client.post(`${path}/approvals`, v2);
      expect(refused.status, who).toBe(403);
      expect(refused.error?.code, who).toBe('AI_APPROVAL_NOT_ALLOWED');
    }
    expect((await viewer.post(`${path}/approvals`, v2)).status).toBe(403);
    expect((await reviewer.post(`${path}/approvals`, v1)).error?.code).toBe('AI_CHANGESET_STALE');
    expect((await reviewer.post(`${path}/approvals`, { changeSetId: v2.changeSetId, contentHash: v1.contentHash })).error?.code).toBe('AI_CHANGESET_STALE');

    const after = await owner.get(path);
    expect(after.data.review).toMatchObject({ approvals: [], countedApprovals: 0, block: { code: 'AI_APPROVALS_REQUIRED' } });
    expect(after.data.lastSeq).toBe(before.data.lastSeq);
    expect((await reviewer.post(`${path}/approvals`, v2)).status).toBe(200);
    expect((await owner.get(path)).data.review).toMatchObject({ countedApprovals: 1, block: null });
    watcher.close();
  });

  it('block Apply on a request for changes until its author approves a later version', async () => {
    const { member, path, stage, apply, owner } = await reviewSetup(0);
    const reviewer = await member('editor', 'Rita');
    const v1 = await stage('Cite the policy section.');
    const requested = await reviewer.post(`${path}/change-requests`, { ...v1, body: 'Say which policy, please.' });
    expect(requested.status).toBe(201);

    const blocked = await apply(v1);
    expect(blocked.error).toMatchObject({ code: 'AI_CHANGES_REQUESTED', changeRequests: 1 });
    const view = (await owner.get(path)).data.review;
    // The Workbench shows the very reason the session gives.
    expect(view.block).toEqual({ code: 'AI_CHANGES_REQUESTED', message: blocked.error?.message });
    expect(view.changeRequests).toMatchObject([{ userId: reviewer.userId, body: 'Say which policy, please.', version: 1 }]);

    const v2 = await stage('Cite the support policy section.');
    expect((await apply(v2)).error?.code).toBe('AI_CHANGES_REQUESTED');
    expect((await reviewer.post(`${path}/approvals`, v2)).status).toBe(200);
    expect((await owner.get(path)).data.review).toMatchObject({ changeRequests: [], block: null });
    expect((await apply(v2)).status).toBe(200);
  });

  it('let the author withdraw a request, and an owner dismiss one or override the count, each recorded with its reason', async () => {
    const { member, path, stage, apply, owner, projectId, base } = await reviewSetup(1);
    const reviewer = await member('editor', 'Rita');
    const v1 = await stage('Cite the policy section.');

    await reviewer.post(`${path}/change-requests`, { ...v1, body: 'Not yet.' });
    expect((await reviewer.delete(`${path}/change-requests/me`)).data).toEqual({ withdrawn: 1 });
    expect((await reviewer.delete(`${path}/change-requests/me`)).error?.code).toBe('AI_CHANGE_REQUEST_NOT_FOUND');

    const again = await reviewer.post(`${path}/change-requests`, { ...v1, body: 'Still not.' });
    const dismiss = `${path}/change-requests/${again.data.requestId}/dismiss`;
    expect((await reviewer.post(dismiss, { reason: 'mine' })).error?.code).toBe('FORBIDDEN');
    expect((await owner.post(dismiss, { reason: '   ' })).error?.code).toBe('VALIDATION_FAILED');
    expect((await owner.post(dismiss, { reason: 'Discussed in the call; the wording is agreed.' })).data).toEqual({ requestId: again.data.requestId, dismissed: true });
    expect((await owner.post(dismiss, { reason: 'twice' })).error?.code).toBe('AI_CHANGE_REQUEST_NOT_FOUND');

    // Now only the count blocks: the owner overrides it for this content, with a reason.
    expect((await apply(v1)).error).toMatchObject({ code: 'AI_APPROVALS_REQUIRED', required: 1, approvals: 0 });
    expect((await reviewer.post(`${path}/approvals/override`, { ...v1, reason: 'urgent' })).error?.code).toBe('FORBIDDEN');
    const overridden = await owner.post(`${path}/approvals/override`, { ...v1, reason: 'Hotfix for the audit; reviewed on paper.' });
    expect(overridden.data).toMatchObject({ userId: owner.userId, reason: 'Hotfix for the audit; reviewed on paper.' });
    expect((await owner.get(path)).data.review).toMatchObject({ block: null, override: { version: 1 } });

    // A later edit makes the override stale, as it does approvals.
    const v2 = await stage('Name the policy section.');
    expect((await owner.get(path)).data.review).toMatchObject({ override: null, block: { code: 'AI_APPROVALS_REQUIRED' } });
    expect((await apply(v2)).error?.code).toBe('AI_APPROVALS_REQUIRED');
    await owner.post(`${path}/approvals/override`, { ...v2, reason: 'Same hotfix, one more word.' });
    expect((await apply(v2)).status).toBe(200);

    const audit = (await auditRows(projectId)).filter((r) => r.event_type === 'ai.review.dismissed' || r.event_type === 'ai.approvals.overridden');
    expect(audit.map((r) => [r.event_type, JSON.parse(r.payload_json).reason])).toEqual([
      ['ai.review.dismissed', 'Discussed in the call; the wording is agreed.'],
      ['ai.approvals.overridden', 'Hotfix for the audit; reviewed on paper.'],
      ['ai.approvals.overridden', 'Same hotfix, one more word.'],
    ]);
    expect(JSON.parse(audit[0]!.payload_json)).toMatchObject({ requestedBy: reviewer.userId, version: 1 });
    expect(JSON.parse(audit[1]!.payload_json)).toMatchObject({ required: 1, counted: 0, version: 1 });

    // History shows that this apply went through on an override, with the owner's reason (review M7).
    const applies = ((await owner.get(`${base}/history`)).data.entries as Array<{ id: string; action: string; override?: unknown }>).filter((e) => e.action === 'ai_apply');
    expect(applies.length).toBeGreaterThan(0);
    for (const entry of applies) expect(entry.override).toEqual({ by: expect.any(String), reason: 'Same hotfix, one more word.' });
    expect((await owner.get(`${base}/history/${applies[0]!.id}`)).data.entry.override).toMatchObject({ reason: 'Same hotfix, one more word.' });

    // A page naming more AI sessions than D1 binds parameters in one statement (100) still reads.
    await env.DB.batch(
      Array.from({ length: 150 }, (_, i) =>
        env.DB.prepare(
          "INSERT INTO revision_history (id, project_id, object_key, action, old_revision, new_revision, write_id, session_id, change_set_id, created_at) VALUES (?, ?, 'project', 'ai_apply', 1, 1, ?, ?, ?, '2020-01-01T00:00:00.000Z')",
        ).bind(`hist_many_${i}`, projectId, `write_many_${i}`, `as_many_${i}`, `cs_many_${i}`),
      ),
    );
    const page = await owner.get(`${base}/history?limit=200`);
    expect(page.status).toBe(200);
    const entries = page.data.entries as Array<{ action: string; sessionId: string | null; override?: unknown }>;
    expect(entries.filter((e) => e.action === 'ai_apply' && e.sessionId?.startsWith('as_many_'))).toHaveLength(150);
    expect(entries.filter((e) => e.override)).toHaveLength(applies.length);
  });
});

