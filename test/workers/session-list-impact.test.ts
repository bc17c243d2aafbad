/**
 * The Sessions list shows each session's impact without the session object: the digest (files,
 * lines, risk flags with their reasons, broken references) is mirrored into D1 with the version
 * that made it, kept when the version is validated, and read back by GET …/ai/sessions.
 */
import { describe, expect, it } from 'vitest';
import { currentStep, stepChangeSet, stepSession, supportDeskProject } from './sessions.ts';

const MISSING = 'assets/policies/missing-checklist.md';
const NOTE = 'assets/notes/triage-notes.md';

describe('the Sessions list with impact', () => {
  it('carries the latest version\'s files and flags (cross-object, broken reference) with their reasons, also after validation', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const quiet = await stepSession(owner, base);
    const step = await currentStep(owner, base);
    const changeSet = stepChangeSet(`${step.markdown.trimEnd()}\n\nUse ${MISSING} for every ticket.\n`);
    changeSet.operations.push({ op: 'upsert', targetType: 'asset', target: { path: NOTE }, payload: { content: '# Notes\n' }, reason: 'notes' } as never);
    const staged = await owner.post(`${base}/ai/sessions/${sessionId}/stage`, { changeSet });
    expect(staged.status).toBe(200);
    await owner.post(`${base}/ai/sessions/${sessionId}/validate`, { changeSetId: staged.data.changeSetId });

    const list = await owner.get(`${base}/ai/sessions`);
    expect(list.status).toBe(200);
    const row = list.data.sessions.find((s: any) => s.sessionId === sessionId);
    expect(row.impact).toMatchObject({ files: 2, added: 1, modified: 1 });
    const flags = new Map<string, any>(row.impact.flags.map((f: any) => [f.flag, f]));
    expect(flags.get('cross-object')).toMatchObject({ count: 1, reasons: [expect.stringContaining(`asset:${NOTE}`)] });
    expect(flags.get('broken-reference')?.reasons[0]).toContain(MISSING);
    expect(row.impact.brokenReferences).toEqual([MISSING]);
    expect(row.impact.flags[0].flag).toBe('broken-reference');
    // A session with nothing staged has no impact yet.
    expect(list.data.sessions.find((s: any) => s.sessionId === quiet).impact).toBeNull();
  });
});

describe('impact: a step naming an agent that is gone', () => {
  it('shows the staged step that names a missing agent as a broken reference on GET …/changes', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const step = await currentStep(owner, base);
    const renamed = step.markdown.replace('agentId: "triager"', 'agentId: "triage-bot"');
    expect(renamed).not.toBe(step.markdown);
    const staged = await owner.post(`${base}/ai/sessions/${sessionId}/stage`, { changeSet: stepChangeSet(renamed) });
    expect(staged.status).toBe(200);

    const changes = await owner.get(`${base}/ai/sessions/${sessionId}/changes`);
    expect(changes.status).toBe(200);
    expect(changes.data.impact.references.broken).toEqual(['agent:triage-bot']);
    expect(changes.data.impact.risks).toContainEqual(
      expect.objectContaining({ flag: 'broken-reference', message: expect.stringContaining('names agent triage-bot') }),
    );
  });
});
