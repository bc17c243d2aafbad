/**
 * The other three AI turn scenarios end to end (2: workflow create, 3: agent optimize, 4: asset optimize), built like scenario 1
 * (ai-turn.test.ts): a scripted model reads, stages and answers; a viewer's socket sees every event
 * in order across a forced restart in the middle of the turn; each tool call runs exactly once; the
 * owner applies, and the stored package changed as the model proposed.
 */
import { abortAllDurableObjects, runDurableObjectAlarm } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { TestClient } from './client.ts';
import { WF, connect, supportDeskProject } from './sessions.ts';
import type { ScriptStep, ScriptedModel } from './scripted-model.ts';
import { expectOrdered, finalAnswer, objectRows, send, sessionObject, toolCall, turnEnd, useScriptedModel, waitFor } from './turns.ts';

const POLICY = 'assets/policies/support-policy.md';

// ---- shared setup ---------------------------------------------------------------------------------

/** The support-desk project, a viewer, and a session on `target` opened by the owner. */
async function openSession(target: Record<string, unknown>) {
  const { owner, base, member } = await supportDeskProject();
  const viewer = await member('viewer');
  const created = await owner.post(`${base}/ai/sessions`, target);
  if (created.status !== 201) throw new Error(`create session failed: ${JSON.stringify(created.error)}`);
  const sessionId = created.data.sessionId as string;
  return { owner, viewer, base, sessionId, path: `${base}/ai/sessions/${sessionId}` };
}

/**
 * Script the owner's model with `steps` (steps[k] answers the request holding k assistant messages)
 * and make request number `hangAt` (0-based) hang: the replies before it are queued in order, then a
 * reply that waits a minute. The object is restarted while it waits; the resumed turn sends the same
 * request again, and the script answers it with steps[hangAt].
 */
async function scriptWithHang(owner: TestClient, steps: ScriptStep[], hangAt: number): Promise<ScriptedModel> {
  const scripted = await useScriptedModel(owner, steps);
  for (const step of steps.slice(0, hangAt)) await scripted.queue(step, 1);
  await scripted.queue({ reply: { content: 'never sent' }, delayMs: 60_000 }, 1);
  return scripted;
}


function dump(events: any[]): string {
  return JSON.stringify(events.map((e) => [e.seq, e.type, e.payload])).slice(0, 8000);
}

/**
 * Send `content` as the owner while the viewer watches; when the model request `hangAt` hangs,
 * restart the session object and reconnect the viewer with the last seq it saw. Resolves with the
 * turn's ending event and every event the viewer received, in order.
 */
async function turnAcrossRestart(s: Awaited<ReturnType<typeof openSession>>, scripted: ScriptedModel, content: string, hangAt: number) {
  const watcher = await connect(s.viewer, s.base, s.sessionId);
  const accepted = await send(s.owner, s.path, content);
  expect(accepted.status).toBe(202);
  expect(accepted.data).toMatchObject({ turnId: expect.stringMatching(/^turn_/), status: 'running' });
  const turnId = accepted.data.turnId as string;

  const requested = () => watcher.events().filter((e) => e.type === 'llm.requested').length;
  await watcher.until(() => requested() === hangAt + 1, `model request ${hangAt + 1}`).catch((error) => {
    console.log(dump(watcher.events()));
    throw error;
  });
  await waitFor(async () => (await scripted.pending()) === 1, 'the hanging request');
  const beforeRestart = watcher.events();
  await abortAllDurableObjects();
  await runDurableObjectAlarm(sessionObject(s.sessionId));
  await watcher.until(() => watcher.closed, 'the socket to close with the restart');
  const resumed = await connect(s.viewer, s.base, s.sessionId, beforeRestart.at(-1)!.seq);
  const end = await turnEnd(resumed, turnId).catch((error) => {
    console.log(dump(resumed.events()));
    throw error;
  });
  resumed.close();

  const events = [...beforeRestart, ...resumed.events()];
  expectOrdered(events);
  const types = events.filter((e) => e.turnId === turnId).map((e) => e.type);
  expect(types[0]).toBe('turn.accepted');
  expect(types).toContain('turn.resumed');
  expect(types.at(-1)).toBe('turn.finished');
  return { turnId, end, events };
}

/** The tool calls the viewer saw finish, and the object's own record of runs: each exactly once. */
async function expectEachToolRanOnce(sessionId: string, events: any[], callIds: string[]) {
  const finished = events.filter((e) => e.type === 'tool.finished').map((e) => e.payload.toolCallId);
  expect(finished.sort()).toEqual([...callIds].sort());
  const runs = await objectRows(sessionId, 'SELECT tool_call_id, status FROM tool_runs ORDER BY tool_call_id');
  expect(runs).toEqual([...callIds].sort().map((id) => ({ tool_call_id: id, status: 'finished' })));
}

/** The tool results the model received in its last request, parsed, by tool_call_id. */
async function toolResults(scripted: ScriptedModel): Promise<Record<string, any>> {
  const last = (await scripted.requests()).at(-1)!.body as any;
  const messages = last.messages.filter((m: any) => m.role === 'tool');
  return Object.fromEntries(messages.map((m: any) => [m.tool_call_id, JSON.parse(m.content)]));
}

/** The session view's conversation: the user's message, then the summary only. */
async function expectSummaryOnly(owner: TestClient, path: string, content: string, summary: string) {
  const state = (await owner.get(path)).data;
  expect(state.messages.items.map((m: any) => [m.role, m.content])).toEqual([
    ['user', content],
    ['assistant', summary],
  ]);
  expect(state.validation.valid).toBe(true);
  return state;
}

async function apply(owner: TestClient, path: string, changeSetId: string) {
  const applied = await owner.post(`${path}/apply`, { changeSetId, confirmSource: 'ui_manual_apply' });
  expect(applied.status, JSON.stringify(applied.error)).toBe(200);
  return applied.data;
}

// ---- scenario 2 -----------------------------------------------------------------------------------

const NEW_WF = 'new-flow';

function newStep(nodeId: string, type: 'step' | 'end', title: string, agentId: string, next: string | null, instructions: string): string {
  const transitions = next ? `transitions:\n  - to: "${next}"\n    label: "next"\n    isDefault: true\n` : 'transitions: []\n';
  return [
    '---',
    'schemaVersion: "1.1"',
    `nodeId: "${nodeId}"`,
    `type: "${type}"`,
    `title: "${title}"`,
    `agentId: "${agentId}"`,
    'inputs: []',
    'outputs: []',
    'setsVariables: []',
    transitions.trimEnd(),
    '---',
    '',
    `# ${title}`,
    '',
    '## Goal',
    '',
    `${title}.`,
    '',
    '## Instructions',
    '',
    instructions,
    '',
    '## Completion (Document-as-State)',
    '',
    `- Append \`${nodeId}\` to \`stepsCompleted\`; set \`currentNodeId\` to the chosen transition's target; update \`updatedAt\`.`,
    '',
  ].join('\n');
}

const NEW_WORKFLOW_MD = `---
schemaVersion: "1.1"
workflowType: "${NEW_WF}"
currentNodeId: "intake"
stepsCompleted: []
variables: {}
decisionLog: []
artifacts: []
---

# Callback requests

## Goal

Take a customer's callback request and check it against the support policy.

## Steps Index

- [intake](steps/intake.md)
- [done](steps/done.md)
`;

const NEW_GRAPH = {
  schemaVersion: '1.1',
  entryNodeId: 'intake',
  nodes: [
    { id: 'intake', type: 'step', file: `workflows/${NEW_WF}/steps/intake.md`, title: 'Take the request', agentId: 'triager' },
    { id: 'done', type: 'end', file: `workflows/${NEW_WF}/steps/done.md`, title: 'Done', agentId: 'triager' },
  ],
  edges: [{ from: 'intake', to: 'done', label: 'next' }],
};

const INTAKE_MD = newStep('intake', 'step', 'Take the request', 'triager', 'done', 'Ask for the callback number and time, and check them against `@pkg/assets/policies/support-policy.md`.');
const DONE_MD = newStep('done', 'end', 'Done', 'triager', null, 'Confirm the callback time to the customer.');

describe('scenario 2: workflow create + validate + apply', () => {
  it('stages a new workflow with its steps, validates it itself, finishes across a restart; a person applies', async () => {
    const s = await openSession({ targetType: 'workflow', workflowId: NEW_WF, mode: 'create' });
    const changeSet = {
      schemaVersion: '1.0',
      targetType: 'workflow',
      mode: 'create',
      operations: [
        { op: 'upsert', targetType: 'workflow', target: { workflowId: NEW_WF }, payload: { workflowMd: NEW_WORKFLOW_MD, graphJson: NEW_GRAPH }, reason: 'The new workflow.' },
        { op: 'upsert', targetType: 'step', target: { workflowId: NEW_WF, nodeId: 'intake' }, payload: { stepMarkdown: INTAKE_MD } },
        { op: 'upsert', targetType: 'step', target: { workflowId: NEW_WF, nodeId: 'done' }, payload: { stepMarkdown: DONE_MD } },
      ],
      impact: { objects: [`workflow:${NEW_WF}`, `graph:${NEW_WF}`, `step:${NEW_WF}/intake`, `step:${NEW_WF}/done`] },
    };
    const summary = 'Created workflow new-flow: take a callback request, then done (2 steps, agent triager).';
    const steps: ScriptStep[] = [
      { toolCalls: [toolCall('builder.context.get', {}, 'call_ctx'), toolCall('builder.agent.read', { agentId: 'triager' }, 'call_agent')] },
      { toolCalls: [toolCall('builder.change.stage', { changeSet }, 'call_stage')] },
      { toolCalls: [toolCall('builder.change.validate', {}, 'call_validate')] },
      finalAnswer(summary),
    ];
    // The final-answer request hangs: stage and validate ran before the restart, and must not run again.
    const scripted = await scriptWithHang(s.owner, steps, 3);
    const content = 'Create a workflow new-flow that takes callback requests, run by the triager.';

    const { end, events } = await turnAcrossRestart(s, scripted, content, 3);
    expect(end.payload).toMatchObject({ responseType: 'change', summary, valid: true, needsManualFix: false, repairs: 0 });
    const validated = events.filter((e) => e.type === 'tool.finished' && e.payload.toolCallId === 'call_validate');
    expect(validated).toEqual([expect.objectContaining({ payload: expect.objectContaining({ name: 'builder.change.validate', ok: true }) })]);
    await expectEachToolRanOnce(s.sessionId, events, ['call_agent', 'call_ctx', 'call_stage', 'call_validate']);
    const results = await toolResults(scripted);
    expect(results.call_validate).toMatchObject({ ok: true, data: { valid: true, errors: [] } });

    const state = await expectSummaryOnly(s.owner, s.path, content, summary);
    expect(state.latestSuggestion.files.map((f: any) => [f.key, f.action]).sort()).toEqual([
      [`graph:${NEW_WF}`, 'A'],
      [`step:${NEW_WF}/done`, 'A'],
      [`step:${NEW_WF}/intake`, 'A'],
      [`workflow:${NEW_WF}`, 'A'],
    ]);

    await apply(s.owner, s.path, state.latestSuggestion.changeSetId);
    const listed = (await s.owner.get(`${s.base}/workflows`)).data.workflows;
    expect(listed.map((w: any) => w.id)).toEqual(expect.arrayContaining([WF, NEW_WF]));
    expect(listed.find((w: any) => w.id === NEW_WF)).toMatchObject({ stepCount: 2 });
    const workflow = (await s.owner.get(`${s.base}/workflows/${NEW_WF}`)).data.workflow;
    expect(workflow.workflowMd).toBe(NEW_WORKFLOW_MD);
    expect(JSON.parse(workflow.graphJson)).toEqual(NEW_GRAPH);
    for (const [nodeId, markdown] of [['intake', INTAKE_MD], ['done', DONE_MD]] as const) {
      const step = await s.owner.get(`${s.base}/workflows/${NEW_WF}/steps/${nodeId}`);
      expect(step.status).toBe(200);
      expect(step.data.step).toMatchObject({ path: `workflows/${NEW_WF}/steps/${nodeId}.md`, markdown });
    }
    expect((await s.owner.get(`${s.base}/validation`)).data.report.errors).toEqual([]);
  });
});

// ---- scenario 3 -----------------------------------------------------------------------------------

/** The stored agents.json, read as the agents editor reads it. */
async function agentsDocument(client: TestClient, base: string) {
  const res = await client.get<{ agentsJson: string; agents: Array<{ id: string }> }>(`${base}/agents`);
  expect(res.status).toBe(200);
  const document = JSON.parse(res.data.agentsJson) as { agents: Array<Record<string, any>> };
  return { ids: res.data.agents.map((a) => a.id), document };
}

function agentChangeSet(operations: unknown[], objects: string[]) {
  return { schemaVersion: '1.0', targetType: 'agent', mode: 'optimize', operations, impact: { objects } };
}

const AGENT_KEY = 'agent:triager';

describe('scenario 3: agent optimize with unchanged agentId', () => {
  it('reads the agent and who uses it, is refused a rename at stage, repairs it, finishes across a restart; a person applies', async () => {
    const s = await openSession({ targetType: 'agent', targetId: 'triager', mode: 'optimize' });
    const before = await agentsDocument(s.owner, s.base);
    const triager = before.document.agents.find((a) => a.id === 'triager')!;
    const persona = {
      ...triager.persona,
      identity: 'Reads each incoming ticket, sorts it by severity, escalates what the policy says and asks the customer for missing details.',
      principles: [...triager.persona.principles, 'Ask once for missing details before escalating'],
    };
    const renamed = agentChangeSet(
      [{ op: 'upsert', targetType: 'agent', target: { agentId: 'triager' }, payload: { agent: { ...triager, id: 'triager-2', persona } } }],
      [AGENT_KEY],
    );
    const improved = agentChangeSet(
      [{ op: 'upsert', targetType: 'agent', target: { agentId: 'triager' }, payload: { agent: { ...triager, persona } }, reason: 'Sharper persona.' }],
      [AGENT_KEY],
    );
    const summary = 'Sharpened the triager persona: it now asks once for missing details (agent id unchanged).';
    const steps: ScriptStep[] = [
      { toolCalls: [toolCall('builder.agent.read', { agentId: 'triager' }, 'call_agent'), toolCall('builder.refs.find', { locator: { type: 'agent', id: 'triager' } }, 'call_refs')] },
      { toolCalls: [toolCall('builder.change.stage', { changeSet: renamed }, 'call_rename')] },
      { toolCalls: [toolCall('builder.change.stage', { changeSet: improved }, 'call_stage')] },
      finalAnswer(summary),
    ];
    // The request after the refused stage hangs: the model repairs its change after the restart.
    const scripted = await scriptWithHang(s.owner, steps, 2);
    const content = 'Make the triager ask for missing details before escalating.';

    const { end, events } = await turnAcrossRestart(s, scripted, content, 2);
    expect(end.payload).toMatchObject({ responseType: 'change', summary, valid: true, needsManualFix: false });
    const stages = events.filter((e) => e.type === 'tool.finished' && e.payload.name === 'builder.change.stage').map((e) => e.payload);
    expect(stages).toEqual([
      expect.objectContaining({ toolCallId: 'call_rename', ok: false, code: 'AI_CHANGESET_CONTRACT_VIOLATION' }),
      expect.objectContaining({ toolCallId: 'call_stage', ok: true, code: null }),
    ]);
    expect(events.filter((e) => e.type === 'change.staged')).toHaveLength(1);
    await expectEachToolRanOnce(s.sessionId, events, ['call_agent', 'call_refs', 'call_rename', 'call_stage']);
    const results = await toolResults(scripted);
    expect(results.call_agent).toMatchObject({ ok: true, data: { agentId: 'triager', agent: { id: 'triager' } } });
    expect(results.call_refs.data.inbound).toEqual(
      ['ask-customer', 'classify-issue', 'decide-details', 'decide-severity', 'escalate-ticket', 'receive-ticket'].map((nodeId) => ({ type: 'step', workflowId: WF, nodeId })),
    );
    expect(results.call_rename).toMatchObject({
      ok: false,
      error: { code: 'AI_CHANGESET_CONTRACT_VIOLATION', details: [expect.objectContaining({ path: 'operations[0].payload.agent.id' })] },
    });

    const state = await expectSummaryOnly(s.owner, s.path, content, summary);
    expect(state.latestSuggestion.files.map((f: any) => [f.key, f.action])).toEqual([[AGENT_KEY, 'M']]);

    await apply(s.owner, s.path, state.latestSuggestion.changeSetId);
    const after = await agentsDocument(s.owner, s.base);
    expect(after.ids).toEqual(before.ids);
    expect(after.document.agents.find((a) => a.id === 'triager')).toEqual({ ...triager, persona });
    expect(after.document.agents.some((a) => a.id === 'triager-2')).toBe(false);
    // The steps that name the triager still validate.
    expect((await s.owner.get(`${s.base}/validation`)).data.report.errors).toEqual([]);
  });

  it('refuses at stage a delete+upsert that renames the optimized agent', async () => {
    const s = await openSession({ targetType: 'agent', targetId: 'triager', mode: 'optimize' });
    const triager = (await agentsDocument(s.owner, s.base)).document.agents.find((a) => a.id === 'triager')!;
    const staged = await s.owner.post(`${s.path}/stage`, {
      changeSet: agentChangeSet(
        [
          { op: 'delete', targetType: 'agent', target: { agentId: 'triager' } },
          { op: 'upsert', targetType: 'agent', target: { agentId: 'triager-2' }, payload: { agent: { ...triager, id: 'triager-2' } } },
        ],
        [AGENT_KEY, 'agent:triager-2'],
      ),
    });
    expect(staged.status).toBe(422);
    expect(staged.error?.code).toBe('AI_CHANGESET_CONTRACT_VIOLATION');
  });
});

// ---- scenario 4 -----------------------------------------------------------------------------------

const POLICY_KEY = `asset:${POLICY}`;
const CLASSIFY_KEY = `step:${WF}/classify-issue`;

describe('scenario 4: asset optimize with reference impact', () => {
  it('finds the steps that use the asset, stages it with them in the impact, finishes across a restart; a person applies', async () => {
    const s = await openSession({ targetType: 'asset', targetId: POLICY, mode: 'optimize' });
    const original = (await s.owner.get(`${s.base}/assets/file?path=${encodeURIComponent(POLICY)}`)).data.asset.content as string;
    const improved = `${original.trimEnd()}\n5. Refunds: only the second line may promise one.\n`;
    const changeSet = {
      schemaVersion: '1.0',
      targetType: 'asset',
      mode: 'optimize',
      operations: [{ op: 'upsert', targetType: 'asset', target: { path: POLICY }, payload: { content: improved }, reason: 'Cover refunds.' }],
      impact: { objects: [POLICY_KEY, CLASSIFY_KEY], counts: { asset: 1 }, riskFlags: ['classify-issue applies the new clause'] },
    };
    const summary = 'Added a refund clause to the support policy; classify-issue reads it.';
    const steps: ScriptStep[] = [
      { toolCalls: [toolCall('builder.refs.find', { locator: { type: 'asset', id: POLICY } }, 'call_refs')] },
      { toolCalls: [toolCall('builder.asset.read', { path: POLICY }, 'call_asset')] },
      { toolCalls: [toolCall('builder.change.stage', { changeSet }, 'call_stage')] },
      finalAnswer(summary),
    ];
    // The request after both reads hangs: the change is staged only after the restart.
    const scripted = await scriptWithHang(s.owner, steps, 2);
    const content = 'Add a clause on refunds to the support policy.';

    const { end, events } = await turnAcrossRestart(s, scripted, content, 2);
    expect(end.payload).toMatchObject({ responseType: 'change', summary, valid: true, needsManualFix: false, repairs: 0 });
    await expectEachToolRanOnce(s.sessionId, events, ['call_asset', 'call_refs', 'call_stage']);
    const results = await toolResults(scripted);
    expect(results.call_refs).toMatchObject({ ok: true, data: { exists: true, inbound: [{ type: 'step', workflowId: WF, nodeId: 'classify-issue' }] } });
    expect(results.call_asset).toMatchObject({ ok: true, data: { path: POLICY, content: original } });

    const state = await expectSummaryOnly(s.owner, s.path, content, summary);
    expect(state.latestSuggestion.files.map((f: any) => [f.key, f.action])).toEqual([[POLICY_KEY, 'M']]);
    expect(state.latestSuggestion.changeSet.impact.objects).toEqual([POLICY_KEY, CLASSIFY_KEY]);

    await apply(s.owner, s.path, state.latestSuggestion.changeSetId);
    expect((await s.owner.get(`${s.base}/assets/file?path=${encodeURIComponent(POLICY)}`)).data.asset.content).toBe(improved);
    const history = await s.owner.get(`${s.base}/history?objectKey=${encodeURIComponent(POLICY_KEY)}`);
    expect(history.status).toBe(200);
    const [latest] = history.data.entries;
    expect(latest).toMatchObject({ objectKey: POLICY_KEY, sessionId: s.sessionId, changeSetId: state.latestSuggestion.changeSetId });
    const entry = (await s.owner.get(`${s.base}/history/${latest.id}`)).data.entry;
    expect(entry).toMatchObject({ contentBefore: original, contentAfter: improved });
  });
});
