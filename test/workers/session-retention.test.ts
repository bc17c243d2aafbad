/**
 * Old sessions (issue 19): an ended session keeps its object's storage for the retention period
 * after its last event; then its read-only view (timeline summary, conversation summaries, final
 * diff) is archived to D1 and the storage released, and the sessions list and the past-session
 * view still answer from D1. The period is moved past with the object's alarm clock. Real Worker,
 * real session object, real D1, the scripted model.
 */
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import { connect, currentStep, stepChangeSet, stepSession, supportDeskProject } from './sessions.ts';
import { finalAnswer, send, sessionObject, turnEnd, useScriptedModel } from './turns.ts';

const DAY_MS = 86_400_000;

/** Move the object's alarm clock `days` ahead, then run its alarm. */
async function afterDays(sessionId: string, days: number): Promise<void> {
  const object = sessionObject(sessionId);
  await runInDurableObject(object, (instance: AiSessionDurableObject) => {
    instance.now = () => Date.now() + days * DAY_MS;
  });
  expect(await runDurableObjectAlarm(object)).toBe(true);
}

function storedTables(sessionId: string): Promise<string[]> {
  return runInDurableObject(sessionObject(sessionId), (_instance: AiSessionDurableObject, state) =>
    state.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'").toArray().map((r) => r.name),
  );
}

/** A session with one chat turn and one applied change: what a past session shows. */
async function appliedSession() {
  const project = await supportDeskProject();
  const { owner, base } = project;
  const sessionId = await stepSession(owner, base);
  const path = `${base}/ai/sessions/${sessionId}`;
  await useScriptedModel(owner, [finalAnswer('The step reads well; citing the policy would help.', 'chat')]);
  const watcher = await connect(owner, base, sessionId);
  const sent = await send(owner, path, 'Is this step clear?');
  expect((await turnEnd(watcher, sent.data.turnId)).type).toBe('turn.finished');
  const step = await currentStep(owner, base);
  const markdown = `${step.markdown}\nCite the policy section.\n`;
  const staged = await owner.post(`${path}/stage`, { changeSet: stepChangeSet(markdown) });
  expect((await owner.post(`${path}/validate`, { changeSetId: staged.data.changeSetId })).data.valid).toBe(true);
  const applied = await owner.post(`${path}/apply`, {
    changeSetId: staged.data.changeSetId,
    contentHash: staged.data.contentHash,
    confirmSource: 'ui_manual_apply',
    revisionBase: { workflowRevision: step.revision },
  });
  expect(applied.status).toBe(200);
  return { ...project, sessionId, path, step, markdown };
}

describe('old sessions', () => {
  it('an applied session keeps its storage within the retention period, and is archived to D1 and released after it', async () => {
    const s = await appliedSession();
    const live = await s.owner.get(s.path);
    expect(live.status).toBe(200);

    await afterDays(s.sessionId, 29);
    expect(await storedTables(s.sessionId)).toContain('events');
    expect((await s.owner.get(s.path)).data.archived).toBeUndefined();

    await afterDays(s.sessionId, 31);
    expect(await storedTables(s.sessionId)).toEqual([]);

    const list = await s.owner.get(`${s.base}/ai/sessions`);
    expect(list.data.sessions).toEqual([expect.objectContaining({ sessionId: s.sessionId, state: 'applied', filesChanged: 1 })]);

    const past = await s.owner.get(s.path);
    expect(past.status).toBe(200);
    expect(past.data).toMatchObject({ sessionId: s.sessionId, meta: live.data.meta, lastSeq: live.data.lastSeq });
    expect(past.data.messages.items.map((m: { content: string }) => m.content)).toEqual(live.data.messages.items.map((m: { content: string }) => m.content));
    expect(past.data.archived.conversation).toEqual(
      expect.arrayContaining([expect.objectContaining({ role: 'assistant', summary: expect.stringContaining('citing the policy would help') })]),
    );
    expect(past.data.archived.timeline).toMatchObject({ events: live.data.lastSeq, byType: expect.objectContaining({ 'change.applied': 1, 'turn.finished': 1 }) });
    expect(past.data.archived.finalDiff).toEqual([expect.objectContaining({ before: s.step.markdown, after: s.markdown, action: 'M' })]);
    const applied = await s.owner.get(`${s.path}/applied`);
    expect(applied.data.files).toEqual([expect.objectContaining({ before: s.step.markdown, after: s.markdown })]);
    // Reading the past session did not bring the object's storage back.
    expect(await storedTables(s.sessionId)).toEqual([]);
  });

  it('a cancelled session is released after the period too; an active one never is', async () => {
    const project = await supportDeskProject();
    const cancelledId = await stepSession(project.owner, project.base);
    const activeId = await stepSession(project.owner, project.base);
    const cancelledPath = `${project.base}/ai/sessions/${cancelledId}`;
    expect((await project.owner.post(`${cancelledPath}/cancel`)).status).toBe(200);
    await afterDays(cancelledId, 31);
    expect(await storedTables(cancelledId)).toEqual([]);
    const past = await project.owner.get(cancelledPath);
    expect(past.data).toMatchObject({ status: 'cancelled', archived: { timeline: { byType: expect.objectContaining({ 'session.cancelled': 1 }) }, finalDiff: [] } });

    // No ending event, no retention clock: the active session keeps everything.
    await runInDurableObject(sessionObject(activeId), (instance: AiSessionDurableObject) => {
      instance.now = () => Date.now() + 365 * DAY_MS;
    });
    await runDurableObjectAlarm(sessionObject(activeId));
    expect(await storedTables(activeId)).toContain('events');
    expect((await project.owner.get(`${project.base}/ai/sessions/${activeId}`)).data.status).toBe('active');
  });
});
