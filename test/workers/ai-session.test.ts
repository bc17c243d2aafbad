// Over 400 lines on purpose: one subject (the session object through the Worker), one describe block per concern, sharing one set of fixtures.
/**
 * The AI session Durable Object through the real Worker: lifecycle over REST, staging into the
 * overlay, validation, shared review, apply in one D1 batch (and its rollback), cancel, the live
 * channel with resume, Yjs co-editing, and eviction.
 */
import { env } from 'cloudflare:workers';
import { evictDurableObject, runInDurableObject } from 'cloudflare:test';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import { describe, expect, it } from 'vitest';
import * as encoding from 'lib0/encoding';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { signedInClient } from './client.ts';
import {
  STEP,
  WF,
  YClient,
  connect,
  currentStep,
  supportDeskProject,
  stepChangeSet,
  stepSession,
  tableSnapshot,
} from './sessions.ts';

const STEP_KEY = `step:${WF}/${STEP}`;

async function improvedStep(client: Parameters<typeof currentStep>[0], base: string, marker = 'Cite the policy section for every violation.') {
  const step = await currentStep(client, base);
  return step.markdown.replace('3. Set `variables.missingDetails`', `3. ${marker}\n4. Set \`variables.missingDetails\``);
}

describe('session lifecycle', () => {
  it('creates a session for an existing target with a server-minted id, lists it and reads it', async () => {
    const { owner, base } = await supportDeskProject();
    const res = await owner.post(`${base}/ai/sessions`, { workflowId: WF, targetType: 'step', targetId: STEP, mode: 'optimize', userPrompt: 'Tighten the policy checks' });
    expect(res.status).toBe(201);
    expect(res.data.sessionId).toMatch(/^as_[a-z2-7]{26}$/);
    expect(res.data).toMatchObject({ status: 'active', targetType: 'step', targetId: STEP, workflowId: WF, latestSuggestion: null });
    expect(Object.keys(res.data.contextEnvelope).sort()).toEqual(
      ['dependency_digest', 'domain_profile', 'normative_baseline', 'revision_info', 'session_meta', 'target_snapshot', 'tool_capabilities'],
    );
    const list = await owner.get(`${base}/ai/sessions`);
    expect(list.data.sessions.map((s: any) => s.sessionId)).toEqual([res.data.sessionId]);
    const read = await owner.get(`${base}/ai/sessions/${res.data.sessionId}`);
    expect(read.status).toBe(200);
    expect(read.data).toMatchObject({ status: 'active', latestSuggestion: null, validation: null, lastSeq: 1 });
    expect(read.data.messages.items).toMatchObject([{ role: 'user', content: 'Tighten the policy checks' }]);
    const audit = await env.DB.prepare("SELECT event_type FROM ai_audit_events WHERE session_id = ?").bind(res.data.sessionId).all();
    expect(audit.results).toEqual([{ event_type: 'ai.session.created' }]);
  });

  it('answers a missing, unknown, mismatched or absent target with its code', async () => {
    const { owner, base } = await supportDeskProject();
    const create = (body: Record<string, unknown>) => owner.post(`${base}/ai/sessions`, body);
    expect((await create({ mode: 'optimize' })).error?.code).toBe('AI_TARGET_CONTEXT_REQUIRED');
    expect((await create({ targetType: 'database', mode: 'optimize' })).error?.code).toBe('AI_TARGET_NOT_SUPPORTED');
    expect((await create({ targetType: 'step', targetId: STEP, mode: 'optimize' })).error?.code).toBe('AI_TARGET_CONTEXT_REQUIRED');
    expect((await create({ targetType: 'workflow', workflowId: WF, targetId: 'weekly-report', mode: 'optimize' })).error?.code).toBe('AI_TARGET_CONTEXT_MISMATCH');
    expect((await create({ targetType: 'workflow', workflowId: 'nope', mode: 'optimize' })).error?.code).toBe('WORKFLOW_NOT_FOUND');
    expect((await create({ targetType: 'step', workflowId: 'nope', targetId: STEP, mode: 'optimize' })).error?.code).toBe('WORKFLOW_NOT_FOUND');
    expect((await create({ targetType: 'step', workflowId: WF, targetId: 'ghost', mode: 'optimize' })).error?.code).toBe('STEP_NOT_FOUND');
    expect((await create({ targetType: 'agent', targetId: 'ghost', mode: 'optimize' })).error?.code).toBe('AGENT_NOT_FOUND');
    expect((await create({ targetType: 'asset', targetId: 'assets/../secrets.md', mode: 'optimize' })).error?.code).toBe('ASSET_INVALID_PATH');
    expect((await create({ targetType: 'asset', targetId: 'assets/none.md', mode: 'optimize' })).error?.code).toBe('ASSET_NOT_FOUND');
    expect((await create({ targetType: 'workflow', workflowId: WF, mode: 'create' })).error?.code).toBe('WORKFLOW_EXISTS');
    expect((await create({ targetType: 'workflow', workflowId: 'new-flow', mode: 'create' })).status).toBe(201);
    expect((await owner.get(`${base}/ai/sessions`)).data.sessions).toHaveLength(1);
  });

  it('lets viewers read, watch and comment but not create, stage, approve, apply or cancel', async () => {
    const { owner, base, member } = await supportDeskProject();
    const viewer = await member('viewer');
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    expect((await viewer.post(`${base}/ai/sessions`, { workflowId: WF, targetType: 'step', targetId: STEP, mode: 'optimize' })).status).toBe(403);
    expect((await viewer.get(path)).status).toBe(200);
    for (const [route, body] of [
      ['stage', { changeSet: stepChangeSet('x') }],
      ['validate', {}],
      ['discard', {}],
      ['apply', { changeSetId: 'cs_x', confirmSource: 'ui_manual_apply' }],
      ['cancel', {}],
      ['approvals', { changeSetId: 'cs_x', contentHash: 'x' }],
    ] as const) {
      const res = await viewer.post(`${path}/${route}`, body);
      expect(res.status, route).toBe(403);
    }
  });

  it("does not reach another project's session", async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const other = await supportDeskProject();
    const res = await other.owner.get(`${other.base}/ai/sessions/${sessionId}`);
    expect(res.status).toBe(404);
    expect(res.error?.code).toBe('AI_SESSION_NOT_FOUND');
    expect((await other.owner.post(`${other.base}/ai/sessions/${sessionId}/cancel`)).error?.code).toBe('AI_SESSION_NOT_FOUND');
    const stranger = await signedInClient('Stranger');
    expect((await stranger.get(`${base}/ai/sessions/${sessionId}`)).status).toBe(404);
  });
});

describe('staging, validation and apply', () => {
  it('stages into the overlay without touching D1, validates, applies in one batch with history, and resets the overlay', async () => {
    const { owner, projectId, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const before = await tableSnapshot(projectId);
    const baseStep = await currentStep(owner, base);
    const markdown = await improvedStep(owner, base);

    const staged = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(markdown) });
    expect(staged.status).toBe(200);
    expect(staged.data).toMatchObject({ status: 'staged', version: 1, files: [{ key: STEP_KEY, action: 'M' }] });
    expect(staged.data.changeSetId).toMatch(/^cs_/);
    expect(await tableSnapshot(projectId)).toEqual(before);

    const changes = await owner.get(`${path}/changes`);
    expect(changes.data.files).toEqual([{ key: STEP_KEY, action: 'M', path: baseStep.path, before: baseStep.markdown, after: markdown }]);

    const validated = await owner.post(`${path}/validate`, { changeSetId: staged.data.changeSetId });
    expect(validated.data).toMatchObject({ valid: true, schemaFailed: false, errors: [], status: 'validated', meta: { allowWrite: false } });

    const noConfirm = await owner.post(`${path}/apply`, { changeSetId: staged.data.changeSetId });
    expect(noConfirm.error?.code).toBe('AI_APPLY_REQUIRES_CONFIRMATION');
    const wrongConfirm = await owner.post(`${path}/apply`, { changeSetId: staged.data.changeSetId, confirmSource: 'model' });
    expect(wrongConfirm.error?.code).toBe('AI_APPLY_REQUIRES_CONFIRMATION');
    expect(await tableSnapshot(projectId)).toEqual(before);

    const applied = await owner.post(`${path}/apply`, {
      changeSetId: staged.data.changeSetId,
      contentHash: staged.data.contentHash,
      confirmSource: 'ui_manual_apply',
      revisionBase: { workflowRevision: baseStep.revision },
    });
    expect(applied.status).toBe(200);
    expect(applied.data).toMatchObject({ applied: true, sessionStatus: 'active', warnings: [], newRevision: { workflowRevision: baseStep.revision + 1 } });

    const after = await currentStep(owner, base);
    expect(after.markdown).toBe(markdown);
    expect(after.revision).toBe(baseStep.revision + 1);
    const history = await env.DB.prepare(
      'SELECT object_key, action, content_before, content_after, session_id, change_set_id FROM revision_history WHERE project_id = ? AND session_id = ?',
    )
      .bind(projectId, sessionId)
      .all();
    expect(history.results).toEqual([
      { object_key: STEP_KEY, action: 'ai_apply', content_before: baseStep.markdown, content_after: markdown, session_id: sessionId, change_set_id: staged.data.changeSetId },
    ]);
    const changeSet = await env.DB.prepare('SELECT status, content_hash FROM ai_change_sets WHERE id = ?').bind(staged.data.changeSetId).first();
    expect(changeSet).toEqual({ status: 'applied', content_hash: staged.data.contentHash });
    const audit = await env.DB.prepare("SELECT count(*) AS n FROM ai_audit_events WHERE session_id = ? AND event_type = 'ai.apply.succeeded'").bind(sessionId).first();
    expect(audit).toEqual({ n: 1 });

    const state = await owner.get(path);
    expect(state.data).toMatchObject({ status: 'active', latestSuggestion: null });
    expect((await owner.get(`${path}/changes`)).data.files).toEqual([]);

    const again = await owner.post(`${path}/apply`, { changeSetId: staged.data.changeSetId, confirmSource: 'ui_manual_apply' });
    expect(again.error?.code).toBe('AI_CHANGESET_ALREADY_APPLIED');
    expect((await currentStep(owner, base)).revision).toBe(baseStep.revision + 1);
  });

  it('reports every violation of a bad changeSet and leaves the overlay untouched', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const bad = {
      schemaVersion: '1.0',
      targetType: 'step',
      mode: 'optimize',
      operations: [
        { op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId: STEP } },
        { op: 'upsert', targetType: 'asset', target: { path: 'assets/../../etc/passwd' }, payload: { content: 'x' } },
        { op: 'delete', targetType: 'workflow', target: { workflowId: WF } },
      ],
      impact: { objects: [] },
      surprise: true,
    };
    const res = await owner.post(`${path}/stage`, { changeSet: bad });
    expect(res.status).toBe(422);
    const codes = res.error!.details!.map((d) => d.code);
    expect(codes).toEqual(expect.arrayContaining(['AI_CHANGESET_CONTRACT_VIOLATION', 'ASSET_INVALID_PATH', 'AI_APPLY_UNSUPPORTED']));
    expect(res.error!.details!.length).toBeGreaterThanOrEqual(4);
    expect((await owner.get(`${path}/changes`)).data.files).toEqual([]);
    expect((await owner.get(path)).data.latestSuggestion).toBeNull();

    const unsupported = await owner.post(`${path}/stage`, { changeSet: { ...stepChangeSet('x'), schemaVersion: '2.0' } });
    expect(unsupported.error?.code).toBe('AI_CHANGESET_SCHEMA_UNSUPPORTED');
    const wrongTarget = await owner.post(`${path}/stage`, { changeSet: { ...stepChangeSet('x'), targetType: 'agent' } });
    expect(wrongTarget.error?.details?.map((d) => d.code)).toContain('AI_TARGET_CONTEXT_MISMATCH');
    const ghost = await owner.post(`${path}/stage`, {
      changeSet: { ...stepChangeSet('x'), operations: [{ op: 'delete', targetType: 'step', target: { workflowId: WF, nodeId: 'ghost' } }] },
    });
    expect(ghost.error?.details?.map((d) => d.code)).toEqual(['STEP_NOT_FOUND']);
    expect((await owner.get(`${path}/changes`)).data.files).toEqual([]);
  });

  it('validates with the spec output shape, rejects an invalid version at apply, and answers stale versions', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const broken = (await currentStep(owner, base)).markdown.replace('agentId: "triager"', 'agentId: "nobody"');
    const first = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(broken) });
    const validation = await owner.post(`${path}/validate`, {});
    expect(validation.data).toMatchObject({ valid: false, schemaFailed: false, status: 'rejected', meta: { allowWrite: false } });
    expect(validation.data.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'AGENT_NOT_FOUND', path: expect.stringContaining('classify-issue.md'), hints: expect.any(Array) })]),
    );
    const refused = await owner.post(`${path}/apply`, { changeSetId: first.data.changeSetId, confirmSource: 'ui_manual_apply' });
    expect(refused.error?.code).toBe('AI_VALIDATION_FAILED');
    expect(refused.error?.details?.[0]?.code).toBe('AGENT_NOT_FOUND');

    const fixed = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(await improvedStep(owner, base)) });
    expect(fixed.data.version).toBe(2);
    const stale = await owner.post(`${path}/apply`, { changeSetId: first.data.changeSetId, confirmSource: 'ui_manual_apply' });
    expect(stale.error?.code).toBe('AI_CHANGESET_STALE');
    expect(stale.error?.latestChangeSetId).toBe(fixed.data.changeSetId);
    const wrongHash = await owner.post(`${path}/apply`, { changeSetId: fixed.data.changeSetId, contentHash: 'f'.repeat(64), confirmSource: 'ui_manual_apply' });
    expect(wrongHash.error?.code).toBe('AI_CHANGESET_STALE');
    const missing = await owner.post(`${path}/apply`, { changeSetId: 'cs_unknown', confirmSource: 'ui_manual_apply' });
    expect(missing.error?.code).toBe('AI_CHANGESET_NOT_FOUND');
  });

  it('applies over a newer baseline with non-blocking AI_REVISION_BASE_MISMATCH warnings, keeping the overwritten content in history', async () => {
    const { owner, projectId, base, member } = await supportDeskProject();
    const editor = await member('editor');
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const original = await currentStep(owner, base);
    const staged = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(await improvedStep(owner, base)) });
    // Someone saves the same step directly while the change is staged.
    const manual = original.markdown.replace('Classify the ticket with the categories of the support policy.', 'Classify the ticket with the categories of the 2026 support policy.');
    expect((await editor.put(`${base}/workflows/${WF}/steps/${STEP}`, { markdown: manual })).status).toBe(200);

    const applied = await owner.post(`${path}/apply`, {
      changeSetId: staged.data.changeSetId,
      confirmSource: 'ui_manual_apply',
      revisionBase: { workflowRevision: original.revision, agentsRevision: 1, assetsRevision: 1 },
    });
    expect(applied.status).toBe(200);
    expect(applied.data.warnings).toEqual([
      {
        code: 'AI_REVISION_BASE_MISMATCH',
        message: expect.stringContaining('changed since'),
        field: 'workflowRevision',
        provided: original.revision,
        current: original.revision + 1,
        blocking: false,
      },
    ]);
    expect(applied.data.newRevision.workflowRevision).toBe(original.revision + 2);
    const overwritten = await env.DB.prepare('SELECT content_before FROM revision_history WHERE project_id = ? AND session_id = ?').bind(projectId, sessionId).first();
    expect(overwritten).toEqual({ content_before: manual });
  });

  it('rolls the whole batch back when a statement inside it fails, and keeps the overlay', async () => {
    const { owner, projectId, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const assetChange = {
      ...stepChangeSet(await improvedStep(owner, base)),
      operations: [
        { op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId: STEP }, payload: { stepMarkdown: await improvedStep(owner, base) } },
        { op: 'upsert', targetType: 'asset', target: { path: 'assets/policies/receipts.md' }, payload: { content: '# Receipts\n\nKeep every receipt.\n' } },
      ],
      impact: { objects: [STEP_KEY, 'asset:assets/policies/receipts.md'] },
    };
    const staged = await owner.post(`${path}/stage`, { changeSet: assetChange });
    expect(staged.data.files.map((f: any) => f.key)).toEqual(['asset:assets/policies/receipts.md', STEP_KEY]);
    const before = await tableSnapshot(projectId);
    // The audit insert is the batch's last statement: failing it must undo the step, the asset, the bumps and history.
    await env.DB.exec(
      `CREATE TRIGGER fail_apply_${projectId} BEFORE INSERT ON ai_audit_events WHEN NEW.project_id = '${projectId}' AND NEW.event_type = 'ai.apply.succeeded' BEGIN SELECT RAISE(ABORT, 'injected failure'); END;`,
    );
    try {
      const res = await owner.post(`${path}/apply`, { changeSetId: staged.data.changeSetId, confirmSource: 'ui_manual_apply' });
      expect(res.status).toBe(500);
      expect(res.error).toMatchObject({ code: 'AI_APPLY_FAILED', causeCode: 'INTERNAL_ERROR' });
      expect(JSON.stringify(res.error)).not.toContain('injected failure');
    } finally {
      await env.DB.exec(`DROP TRIGGER fail_apply_${projectId};`);
    }
    expect(await tableSnapshot(projectId)).toEqual(before);
    const status = await env.DB.prepare('SELECT status FROM ai_change_sets WHERE id = ?').bind(staged.data.changeSetId).first();
    expect(status).toEqual({ status: 'staged' });
    const failed = await env.DB.prepare("SELECT count(*) AS n FROM ai_audit_events WHERE session_id = ? AND event_type = 'ai.apply.failed'").bind(sessionId).first();
    expect(failed).toEqual({ n: 1 });
    // Nothing lost: the overlay still holds both files, and a retry applies them.
    expect((await owner.get(`${path}/changes`)).data.files).toHaveLength(2);
    const retry = await owner.post(`${path}/apply`, { changeSetId: staged.data.changeSetId, confirmSource: 'ui_manual_apply' });
    expect(retry.status).toBe(200);
    expect(retry.data.newRevision.assetsRevision).toBe(2);
    expect((await owner.get(`${base}/assets/file?path=assets/policies/receipts.md`)).status).toBe(200);
  });

  it('cancels: the overlay is discarded, nothing is written, and the session refuses further changes', async () => {
    const { owner, projectId, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const before = await tableSnapshot(projectId);
    const staged = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(await improvedStep(owner, base)) });
    const cancelled = await owner.post(`${path}/cancel`);
    expect(cancelled.data).toEqual({ status: 'cancelled' });
    expect(await tableSnapshot(projectId)).toEqual(before);
    expect((await owner.get(`${path}/changes`)).data.files).toEqual([]);
    expect((await owner.get(path)).data.status).toBe('cancelled');
    const row = await env.DB.prepare('SELECT status FROM ai_sessions WHERE id = ?').bind(sessionId).first();
    expect(row).toEqual({ status: 'cancelled' });
    expect((await owner.post(`${path}/stage`, { changeSet: stepChangeSet('x') })).error?.code).toBe('AI_SESSION_CLOSED');
    expect((await owner.post(`${path}/apply`, { changeSetId: staged.data.changeSetId, confirmSource: 'ui_manual_apply' })).error?.code).toBe('AI_SESSION_CLOSED');
  });

  it('discards staged changes on request and rejects the version', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const staged = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(await improvedStep(owner, base)) });
    expect((await owner.post(`${path}/discard`)).data).toEqual({ discarded: true });
    expect((await owner.get(`${path}/changes`)).data.files).toEqual([]);
    const row = await env.DB.prepare('SELECT status FROM ai_change_sets WHERE id = ?').bind(staged.data.changeSetId).first();
    expect(row).toEqual({ status: 'rejected' });
    expect((await owner.post(`${path}/validate`)).error?.code).toBe('AI_NO_STAGED_CHANGES');
  });
});

describe('shared review', () => {
  it('anchors comment threads to a file and line, resolves and reopens them, and marks them outdated when the anchor goes', async () => {
    const { owner, base, member } = await supportDeskProject();
    const editor = await member('editor');
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    await owner.post(`${path}/stage`, { changeSet: stepChangeSet(await improvedStep(owner, base)) });
    const thread = await editor.post(`${path}/comments`, { objectKey: STEP_KEY, line: 25, body: 'Should this cite the section number?' });
    expect(thread.status).toBe(201);
    const reply = await owner.post(`${path}/comments`, { objectKey: STEP_KEY, threadId: thread.data.threadId, body: 'Yes.' });
    expect(reply.data.threadId).toBe(thread.data.threadId);
    expect((await editor.post(`${path}/threads/${thread.data.threadId}/resolve`)).data.status).toBe('resolved');
    expect((await editor.post(`${path}/threads/${thread.data.threadId}/reopen`)).data.status).toBe('open');
    expect((await editor.post(`${path}/threads/thr_missing/resolve`)).error?.code).toBe('AI_COMMENT_NOT_FOUND');

    let threads = (await owner.get(path)).data.review.threads;
    expect(threads).toMatchObject([{ objectKey: STEP_KEY, line: 25, status: 'open', anchor: 'current', comments: [{ body: 'Should this cite the section number?' }, { body: 'Yes.' }] }]);
    // A re-stage that keeps the line keeps the thread current; one that shortens the file below it makes it outdated.
    const short = '---\nschemaVersion: "1.1"\nnodeId: "classify-issue"\ntype: "step"\ntitle: "Check"\nagentId: "triager"\n---\n\n## Goal\n\nCheck.\n\n## Instructions\n\n1. Check.\n';
    await owner.post(`${path}/stage`, { changeSet: stepChangeSet(short) });
    threads = (await owner.get(path)).data.review.threads;
    expect(threads[0]).toMatchObject({ anchor: 'outdated', comments: [{}, {}] });
  });

  it('binds approvals to the content hash, revokes them when the content changes, and enforces the N-approvals rule', async () => {
    const { owner, base, member } = await supportDeskProject();
    const editor = await member('editor');
    expect((await editor.patch(base, { requiredApprovals: 1 })).error?.code).toBe('FORBIDDEN');
    const rule = await owner.patch(base, { requiredApprovals: 1 });
    expect(rule.data.project.settings).toEqual({ requiredApprovals: 1 });
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const v1 = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(await improvedStep(owner, base)) });
    expect((await editor.post(`${path}/approvals`, { changeSetId: v1.data.changeSetId, contentHash: v1.data.contentHash })).error?.code).toBe('AI_VALIDATION_FAILED');
    await owner.post(`${path}/validate`);
    // The creator asked for the change: their approval is refused.
    expect((await owner.post(`${path}/approvals`, { changeSetId: v1.data.changeSetId, contentHash: v1.data.contentHash })).error?.code).toBe('AI_APPROVAL_NOT_ALLOWED');
    const blocked = await owner.post(`${path}/apply`, { changeSetId: v1.data.changeSetId, confirmSource: 'ui_manual_apply' });
    expect(blocked.error).toMatchObject({ code: 'AI_APPROVALS_REQUIRED', required: 1, approvals: 0 });
    const approved = await editor.post(`${path}/approvals`, { changeSetId: v1.data.changeSetId, contentHash: v1.data.contentHash });
    expect(approved.data.approvals.map((a: any) => a.userId)).toEqual([editor.userId]);

    // New content: every approval is revoked.
    const v2 = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(await improvedStep(owner, base, 'Name the policy section.')) });
    const state = await owner.get(path);
    expect(state.data.review).toMatchObject({ approvals: [], requiredApprovals: 1, countedApprovals: 0 });
    expect((await editor.post(`${path}/approvals`, { changeSetId: v1.data.changeSetId, contentHash: v1.data.contentHash })).error?.code).toBe('AI_CHANGESET_STALE');
    await owner.post(`${path}/validate`);
    expect((await editor.post(`${path}/approvals`, { changeSetId: v2.data.changeSetId, contentHash: 'nope' })).error?.code).toBe('AI_CHANGESET_STALE');
    await editor.post(`${path}/approvals`, { changeSetId: v2.data.changeSetId, contentHash: v2.data.contentHash });
    const applied = await owner.post(`${path}/apply`, { changeSetId: v2.data.changeSetId, confirmSource: 'ui_manual_apply' });
    expect(applied.status).toBe(200);
  });
});

describe('the live channel', () => {
  it('sends every event in order to two watchers, and replays exactly the missed events after a reconnect', async () => {
    const { owner, base, member } = await supportDeskProject();
    const viewer = await member('viewer');
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const a = await connect(owner, base, sessionId);
    const b = await connect(viewer, base, sessionId);
    await a.event('session.created');
    await b.event('session.created');
    expect(b.texts().find((m) => m.type === 'hello')).toMatchObject({ you: { role: 'viewer' }, canEdit: false, status: 'active' });

    const staged = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(await improvedStep(owner, base)) });
    await owner.post(`${path}/validate`);
    await b.event('change.validated');
    const seenByB = b.events().map((e) => e.seq);
    b.close();

    await owner.post(`${path}/comments`, { objectKey: STEP_KEY, line: 3, body: 'Looks right.' });
    await owner.post(`${path}/apply`, { changeSetId: staged.data.changeSetId, confirmSource: 'ui_manual_apply' });
    await a.event('change.applied');

    const types = a.events().map((e) => e.type);
    expect(types).toEqual([
      'session.created',
      'change.staged',
      'change.validated',
      'comment.added',
      'change.applied',
    ]);
    const seqs = a.events().map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(a.events().find((e) => e.type === 'change.staged').payload.files).toEqual([{ key: STEP_KEY, action: 'M', path: expect.any(String) }]);

    const lastSeen = Math.max(...seenByB);
    const back = await connect(viewer, base, sessionId, lastSeen);
    const replay = await back.until(() => back.texts().find((m) => m.type === 'events' && m.replay), 'replay');
    expect(replay.done).toBe(true);
    expect(replay.events.map((e: any) => e.seq)).toEqual(seqs.filter((s) => s > lastSeen));
    expect(replay.events).toEqual(a.events().filter((e) => e.seq > lastSeen));
    a.close();
    back.close();
  });

  it('shows who is present, with role and file, to newcomers and everyone else', async () => {
    const { owner, base, member } = await supportDeskProject();
    const viewer = await member('viewer');
    const sessionId = await stepSession(owner, base);
    const a = await connect(owner, base, sessionId);
    a.send({ type: 'presence', file: STEP_KEY });
    await a.until(() => a.texts().find((m) => m.type === 'presence' && m.present[0]?.file === STEP_KEY), 'own presence');
    const b = await connect(viewer, base, sessionId);
    const seen = await b.until(() => b.texts().find((m) => m.type === 'presence' && m.present.length === 2), 'presence of two');
    expect(seen.present.map((p: any) => [p.userId, p.role, p.file]).sort()).toEqual(
      [[owner.userId, 'owner', STEP_KEY], [viewer.userId, 'viewer', null]].sort(),
    );
    await a.until(() => a.texts().some((m) => m.type === 'presence' && m.present.length === 2), 'a sees b');
    b.close();
    await a.until(() => [...a.texts()].reverse().find((m) => m.type === 'presence')?.present.length === 1, 'b left');
    a.close();
  });

  it("turns an editor's Yjs edit into a validated version that can be approved and applied", async () => {
    const { owner, base, member } = await supportDeskProject();
    const editor = await member('editor');
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const watcher = await connect(owner, base, sessionId);
    const staged = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(await improvedStep(owner, base)) });

    const socket = await connect(editor, base, sessionId);
    const y = new YClient(socket);
    const text = await y.sync(() => y.text(STEP_KEY), 'the staged step in the Yjs doc');
    expect(text.toString()).toContain('Cite the policy section');
    const at = text.toString().indexOf('## Goal');
    text.insert(at, '<!-- reviewed by Edith -->\n');

    const edited = await watcher.event('change.staged', (e) => e.payload.source === 'edit');
    expect(edited.actor).toMatchObject({ kind: 'user', userId: editor.userId });
    expect(edited.payload.version).toBe(staged.data.version + 1);
    const validated = await watcher.event('change.validated', (e) => e.payload.version === edited.payload.version);
    expect(validated.payload.valid).toBe(true);

    // The editor edited this version, so someone else approves it.
    expect((await editor.post(`${path}/approvals`, { changeSetId: edited.payload.changeSetId, contentHash: edited.payload.contentHash })).error?.code).toBe('AI_APPROVAL_NOT_ALLOWED');
    const reviewer = await member('editor', 'Rita');
    const approve = await reviewer.post(`${path}/approvals`, { changeSetId: edited.payload.changeSetId, contentHash: edited.payload.contentHash });
    expect(approve.status).toBe(200);
    const applied = await owner.post(`${path}/apply`, { changeSetId: edited.payload.changeSetId, contentHash: edited.payload.contentHash, confirmSource: 'ui_manual_apply' });
    expect(applied.status).toBe(200);
    expect((await currentStep(owner, base)).markdown).toContain('<!-- reviewed by Edith -->');
    const history = await env.DB.prepare('SELECT content_after FROM revision_history WHERE session_id = ?').bind(sessionId).first<{ content_after: string }>();
    expect(history?.content_after).toContain('<!-- reviewed by Edith -->');
    watcher.close();
    socket.close();
  });

  it("refuses a viewer's Yjs write, a malformed update and an update that adds files, leaving the document untouched", async () => {
    const { owner, base, member } = await supportDeskProject();
    const viewer = await member('viewer');
    const editor = await member('editor');
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const markdown = await improvedStep(owner, base);
    await owner.post(`${path}/stage`, { changeSet: stepChangeSet(markdown) });

    const v = await connect(viewer, base, sessionId);
    const vy = new YClient(v);
    const vtext = await vy.sync(() => vy.text(STEP_KEY), 'viewer sync');
    vtext.insert(0, 'VIEWER WAS HERE');
    await v.until(() => v.texts().find((m) => m.type === 'error' && m.code === 'YJS_FORBIDDEN_CHANGE'), 'read-only refusal');

    const e = await connect(editor, base, sessionId);
    const ey = new YClient(e);
    await ey.sync(() => ey.text(STEP_KEY), 'editor sync');
    ey.doc.getMap<Y.Map<unknown>>('files').set('asset:assets/evil.md', new Y.Map());
    await e.until(() => e.texts().find((m) => m.type === 'error' && m.code === 'YJS_FORBIDDEN_CHANGE'), 'shape refusal');

    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, 0);
    encoding.writeVarUint(encoder, syncProtocol.messageYjsUpdate);
    encoding.writeVarUint8Array(encoder, new Uint8Array([0xff, 0xff, 0xff, 0x01, 0x02]));
    e.socket.send(encoding.toUint8Array(encoder));
    await e.until(() => e.closed, 'close after a malformed update');
    expect(e.closed).toMatchObject({ code: 4400, reason: 'YJS_MALFORMED' });

    const files = (await owner.get(`${path}/changes`)).data.files;
    expect(files).toEqual([expect.objectContaining({ key: STEP_KEY, after: markdown })]);
    v.close();
  });

  it('answers unknown frames, closes on oversize frames, and caps binary frames', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const a = await connect(owner, base, sessionId);
    a.send('not json');
    await a.until(() => a.texts().find((m) => m.type === 'error' && m.code === 'INVALID_JSON'), 'invalid json');
    a.send({ type: 'launch-missiles' });
    await a.until(() => a.texts().find((m) => m.type === 'error' && m.code === 'PROTOCOL_ERROR'), 'unknown frame');
    a.send({ type: 'hello', lastSeq: 0, extra: 'x'.repeat(20_000) });
    await a.until(() => a.closed, 'close on oversize');
    expect(a.closed).toMatchObject({ code: 4413, reason: 'FRAME_TOO_LARGE' });
    const b = await connect(owner, base, sessionId);
    b.socket.send(new Uint8Array(600 * 1024));
    await b.until(() => b.closed, 'close on oversize binary');
    expect(b.closed?.code).toBe(4413);
  });

  it('compacts the Yjs update log into a snapshot and restores the same document from it', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const object = env.AI_SESSION.get(env.AI_SESSION.idFromName(sessionId));
    const markdown = await improvedStep(owner, base);
    await owner.post(`${base}/ai/sessions/${sessionId}/stage`, { changeSet: stepChangeSet(markdown) });
    const edited = await runInDurableObject(object, (instance: AiSessionDurableObject, state) => {
      for (let i = 0; i < 250; i++) {
        instance.core.overlay.stage([{ key: STEP_KEY, deleted: false, content: `${markdown}\n<!-- edit ${i} -->\n`, baseRevision: 1, baseHash: null }], 'test');
      }
      const rows = state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM y_updates').one().n;
      return { rows, entries: instance.core.overlay.entries() };
    });
    expect(edited.rows).toBeLessThanOrEqual(200);
    expect(edited.entries[0]!.content).toContain('<!-- edit 249 -->');
    await evictDurableObject(object);
    const restored = await runInDurableObject(object, (instance: AiSessionDurableObject) => instance.core.overlay.entries());
    expect(restored).toEqual(edited.entries);
  });

  it('comes back after eviction with its overlay, versions and event log intact', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const path = `${base}/ai/sessions/${sessionId}`;
    const markdown = await improvedStep(owner, base);
    const staged = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(markdown) });
    await owner.post(`${path}/validate`);
    const before = (await owner.get(path)).data;
    const watcher = await connect(owner, base, sessionId);
    await watcher.event('change.validated');

    await evictDurableObject(env.AI_SESSION.get(env.AI_SESSION.idFromName(sessionId)));

    const after = (await owner.get(path)).data;
    expect(after).toEqual(before);
    expect((await owner.get(`${path}/changes`)).data.files).toEqual([expect.objectContaining({ key: STEP_KEY, after: markdown })]);
    const back = await connect(owner, base, sessionId, 0);
    const replay = await back.until(() => back.texts().find((m) => m.type === 'events' && m.replay), 'replay');
    expect(replay.events).toEqual(watcher.events());
    const applied = await owner.post(`${path}/apply`, { changeSetId: staged.data.changeSetId, confirmSource: 'ui_manual_apply' });
    expect(applied.status).toBe(200);
    watcher.close();
    back.close();
  });
});
