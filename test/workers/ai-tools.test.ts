/**
 * The `builder.*` tools as the model calls them, through the session object's RPC (the loop that
 * calls them arrives with the next issue): the effective view, staging by the AI, the forbidden
 * apply, unknown tools, bad arguments and cross-project reads; and a cancel sent during an apply.
 */
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { AiSessionDurableObject } from '../../durable-objects/ai-session/ai-session.ts';
import type { Actor } from '../../durable-objects/ai-session/session.ts';
import { STEP, WF, connect, currentStep, supportDeskProject, stepChangeSet, stepSession, tableSnapshot } from './sessions.ts';

const STEP_KEY = `step:${WF}/${STEP}`;

function sessionObject(sessionId: string) {
  return env.AI_SESSION.get(env.AI_SESSION.idFromName(sessionId));
}

async function setup() {
  const project = await supportDeskProject();
  const sessionId = await stepSession(project.owner, project.base);
  const actor: Actor = { userId: project.owner.userId, name: 'Owner', role: 'owner' };
  const object = sessionObject(sessionId);
  const tool = (name: string, args: unknown) =>
    runInDurableObject(object, (instance: AiSessionDurableObject) => instance.tool(project.projectId, actor, name, args));
  return { ...project, sessionId, actor, object, tool };
}

describe('builder tools', () => {
  it('read the effective view: the stored step first, the staged one after a stage by the AI', async () => {
    const { owner, base, tool } = await setup();
    const stored = await currentStep(owner, base);
    const read = await tool('builder.step.read', { workflowId: WF, nodeId: STEP });
    expect(read).toMatchObject({ ok: true, error: null, data: { nodeId: STEP, markdown: stored.markdown }, meta: { revision: stored.revision, staged: false } });

    const markdown = stored.markdown.replace('Classify the ticket with the categories of the support policy.', 'Classify the ticket with the categories of the support policy, citing its rule.');
    const staged = await tool('builder.change.stage', { changeSet: stepChangeSet(markdown) });
    expect(staged).toMatchObject({ ok: true, data: { status: 'staged', version: 1, files: [{ key: STEP_KEY, action: 'M' }] } });
    const again = await tool('builder.step.read', { workflowId: WF, nodeId: STEP });
    expect(again).toMatchObject({ ok: true, data: { markdown }, meta: { staged: true } });
    // Nothing reached D1.
    expect((await currentStep(owner, base)).markdown).toBe(stored.markdown);

    const validated = await tool('builder.change.validate', {});
    expect(validated).toMatchObject({ ok: true, data: { valid: true, status: 'validated', meta: { allowWrite: false } } });
    const refs = await tool('builder.refs.find', { locator: { type: 'asset', id: 'assets/policies/support-policy.md' } });
    expect(refs.ok && (refs.data as any).inbound).toEqual(expect.arrayContaining([{ type: 'step', workflowId: WF, nodeId: STEP }]));
  });

  it('records an AI stage as the AI in the event log, and accepts the legacy changeSet shape with a warning', async () => {
    const { owner, base, sessionId, tool } = await setup();
    const watcher = await connect(owner, base, sessionId);
    const stored = await currentStep(owner, base);
    const legacy = {
      targetType: 'step',
      mode: 'optimize',
      changeSet: { steps: [{ workflowId: WF, nodeId: STEP, stepMarkdown: `${stored.markdown}\n<!-- legacy -->\n`, reason: 'x' }] },
      impact: { updated: [STEP_KEY], risks: [], requiresConfirmation: true },
    };
    const staged = await tool('builder.change.stage', { changeSet: legacy });
    expect(staged.ok).toBe(true);
    expect((staged.data as any).warnings.map((w: any) => w.code)).toContain('AI_CHANGESET_LEGACY_SHAPE');
    const event = await watcher.event('change.staged');
    expect(event).toMatchObject({ actor: { kind: 'ai' }, payload: { source: 'ai', files: [{ key: STEP_KEY, action: 'M' }] } });
    expect((await tool('builder.change.discard', {})).data).toEqual({ discarded: true });
    await watcher.event('change.discarded');
    watcher.close();
  });

  it('refuses apply, unknown tools, bad arguments, other projects and traversal — and runs nothing', async () => {
    const { projectId, tool } = await setup();
    const other = await supportDeskProject();
    const before = await tableSnapshot(projectId);

    const apply = await tool('builder.change.apply', { changeSetId: 'cs_x', confirmSource: 'ui_manual_apply' });
    expect(apply).toMatchObject({ ok: false, data: null, error: { code: 'AI_TOOL_FORBIDDEN' } });
    expect((await tool('builder.fs.write', { path: '/etc/passwd' })).error?.code).toBe('AI_TOOL_NOT_ALLOWED');
    const bad = await tool('builder.step.read', { workflowId: WF, nodeId: STEP, limit: 'all' });
    expect(bad.error?.code).toBe('AI_TOOL_ARGUMENTS_INVALID');
    expect(bad.error?.details?.[0]?.path).toBe('limit');
    const foreign = await tool('builder.step.read', { projectId: other.projectId, workflowId: WF, nodeId: STEP });
    expect(foreign.error?.code).toBe('AI_TOOL_FORBIDDEN');
    expect((await tool('builder.asset.read', { path: 'assets/../../etc/passwd' })).error?.code).toBe('ASSET_INVALID_PATH');
    expect((await tool('builder.change.stage', { sessionId: 'as_other', changeSet: stepChangeSet('x') })).error?.code).toBe('AI_TOOL_FORBIDDEN');
    const contract = await tool('builder.change.stage', { changeSet: { schemaVersion: '1.0' } });
    expect(contract).toMatchObject({ ok: false, error: { code: 'AI_CHANGESET_CONTRACT_VIOLATION' } });
    expect(contract.error?.details?.length).toBeGreaterThan(1);

    expect(await tableSnapshot(projectId)).toEqual(before);
    expect((await tool('builder.change.validate', {})).error?.code).toBe('AI_NO_STAGED_CHANGES');
  });

  it('refuses a cancel sent while an apply runs, and the apply completes', async () => {
    const { owner, base, object, projectId, actor, sessionId } = await setup();
    const stored = await currentStep(owner, base);
    const staged = await owner.post(`${base}/ai/sessions/${sessionId}/stage`, {
      changeSet: stepChangeSet(`${stored.markdown}\n<!-- applied while cancelling -->\n`),
    });
    const [applied, cancelled] = await runInDurableObject(object, async (instance: AiSessionDurableObject) => {
      const apply = instance.apply(projectId, actor, { changeSetId: staged.data.changeSetId });
      const cancel = instance.cancel(projectId, actor);
      return Promise.all([apply, cancel]);
    });
    expect(applied.ok).toBe(true);
    expect(cancelled).toMatchObject({ ok: false, status: 409, error: { code: 'AI_SESSION_BUSY' } });
    expect((await currentStep(owner, base)).markdown).toContain('applied while cancelling');
    const state = await owner.get(`${base}/ai/sessions/${sessionId}`);
    expect(state.data.status).toBe('active');
  });
});
