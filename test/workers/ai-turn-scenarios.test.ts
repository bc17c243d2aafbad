/**
 * The other three AI turn scenarios end to end (scenarios 2–4), built like scenario 1
 * (ai-turn.test.ts): a scripted model reads, stages and answers; a viewer's socket sees every event
 * in order across a forced restart in the middle of the turn; each tool call runs exactly once; the
 * owner applies, and the stored package changed as the model proposed.
 */
import { abortAllDurableObjects, runDurableObjectAlarm } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { TestClient } from './client.ts';
import { WF, connect, expenseProject } from './sessions.ts';
import type { ScriptStep, ScriptedModel } from './scripted-model.ts';
import { expectOrdered, finalAnswer, objectRows, send, sessionObject, toolCall, turnEnd, useScriptedModel, waitFor } from './turns.ts';

const POLICY = 'assets/policies/expense-policy.md';

// ---- shared setup ---------------------------------------------------------------------------------

/** The expense-ops project, a viewer, and a session on `target` opened by the owner. */
async function openSession(target: Record<string, unknown>) {
  const { owner, base, member } = await expenseProject();
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

# Receipt intake

## Goal

Collect the receipts of one expense report and check them against the policy.

## Steps Index

- [intake](steps/intake.md)
- [done](steps/done.md)
`;

const NEW_GRAPH = {
  schemaVersion: '1.1',
  entryNodeId: 'intake',
  nodes: [
    { id: 'intake', type: 'step', file: `workflows/${NEW_WF}/steps/intake.md`, title: 'Collect receipts', agentId: 'auditor' },
    { id: 'done', type: 'end', file: `workflows/${NEW_WF}/steps/done.md`, title: 'Done', agentId: 'auditor' },
  ],
  edges: [{ from: 'intake', to: 'done', label: 'next' }],
};

const INTAKE_MD = newStep('intake', 'step', 'Collect receipts', 'auditor', 'done', 'Ask for every receipt and check it against `@pkg/assets/policies/expense-policy.md`.');
const DONE_MD = newStep('done', 'end', 'Done', 'auditor', null, 'Summarise the receipts that are missing.');

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
    const summary = 'Created workflow new-flow: collect receipts, then done (2 steps, agent auditor).';
    const steps: ScriptStep[] = [
      { toolCalls: [toolCall('builder.context.get', {}, 'call_ctx'), toolCall('builder.agent.read', { agentId: 'auditor' }, 'call_agent')] },
      { toolCalls: [toolCall('builder.change.stage', { changeSet }, 'call_stage')] },
      { toolCalls: [toolCall('builder.change.validate', {}, 'call_validate')] },
      finalAnswer(summary),
    ];
    // The final-answer request hangs: stage and validate ran before the restart, and must not run again.
    const scripted = await scriptWithHang(s.owner, steps, 3);
    const content = 'Create a workflow new-flow that collects receipts, run by the auditor.';

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

const AGENT_KEY = 'agent:auditor';

describe('scenario 3: agent optimize with unchanged agentId', () => {
  it('reads the agent and who uses it, is refused a rename at stage, repairs it, finishes across a restart; a person applies', async () => {
    const s = await openSession({ targetType: 'agent', targetId: 'auditor', mode: 'optimize' });
    const before = await agentsDocument(s.owner, s.base);
    const auditor = before.document.agents.find((a) => a.id === 'auditor')!;
    const persona = {
      ...auditor.persona,
      identity: 'Checks every expense line against the company policy, flags exceptions with evidence and asks for missing receipts.',
      principles: [...auditor.persona.principles, 'Ask once for a missing receipt before flagging the line'],
    };
    const renamed = agentChangeSet(
      [{ op: 'upsert', targetType: 'agent', target: { agentId: 'auditor' }, payload: { agent: { ...auditor, id: 'auditor-2', persona } } }],
      [AGENT_KEY],
    );
    const improved = agentChangeSet(
      [{ op: 'upsert', targetType: 'agent', target: { agentId: 'auditor' }, payload: { agent: { ...auditor, persona } }, reason: 'Sharper persona.' }],
      [AGENT_KEY],
    );
    const summary = 'Sharpened the auditor persona: it now asks once for a missing receipt (agent id unchanged).';
    const steps: ScriptStep[] = [
      { toolCalls: [toolCall('builder.agent.read', { agentId: 'auditor' }, 'call_agent'), toolCall('builder.refs.find', { locator: { type: 'agent', id: 'auditor' } }, 'call_refs')] },
      { toolCalls: [toolCall('builder.change.stage', { changeSet: renamed }, 'call_rename')] },
      { toolCalls: [toolCall('builder.change.stage', { changeSet: improved }, 'call_stage')] },
      finalAnswer(summary),
    ];
    // The request after the refused stage hangs: the model repairs its change after the restart.
    const scripted = await scriptWithHang(s.owner, steps, 2);
    const content = 'Make the auditor ask for missing receipts before flagging a line.';

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
    expect(results.call_agent).toMatchObject({ ok: true, data: { agentId: 'auditor', agent: { id: 'auditor' } } });
    expect(results.call_refs.data.inbound).toEqual(
      ['check-lines', 'collect-report', 'decide-complete', 'decide-outcome', 'flag-violations', 'request-receipts'].map((nodeId) => ({ type: 'step', workflowId: WF, nodeId })),
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
    expect(after.document.agents.find((a) => a.id === 'auditor')).toEqual({ ...auditor, persona });
    expect(after.document.agents.some((a) => a.id === 'auditor-2')).toBe(false);
    // The steps that name the auditor still validate.
    expect((await s.owner.get(`${s.base}/validation`)).data.report.errors).toEqual([]);
  });

  it('refuses at stage a delete+upsert that renames the optimized agent', async () => {
    const s = await openSession({ targetType: 'agent', targetId: 'auditor', mode: 'optimize' });
    const auditor = (await agentsDocument(s.owner, s.base)).document.agents.find((a) => a.id === 'auditor')!;
    const staged = await s.owner.post(`${s.path}/stage`, {
      changeSet: agentChangeSet(
        [
          { op: 'delete', targetType: 'agent', target: { agentId: 'auditor' } },
          { op: 'upsert', targetType: 'agent', target: { agentId: 'auditor-2' }, payload: { agent: { ...auditor, id: 'auditor-2' } } },
        ],
        [AGENT_KEY, 'agent:auditor-2'],
      ),
    });
    expect(staged.status).toBe(422);
    expect(staged.error?.code).toBe('AI_CHANGESET_CONTRACT_VIOLATION');
  });
});

// ---- scenario 4 -----------------------------------------------------------------------------------

const POLICY_KEY = `asset:${POLICY}`;
const CHECK_LINES_KEY = `step:${WF}/check-lines`;

describe('scenario 4: asset optimize with reference impact', () => {
  it('finds the steps that use the asset, stages it with them in the impact, finishes across a restart; a person applies', async () => {
    const s = await openSession({ targetType: 'asset', targetId: POLICY, mode: 'optimize' });
    const original = (await s.owner.get(`${s.base}/assets/file?path=${encodeURIComponent(POLICY)}`)).data.asset.content as string;
    const improved = `${original.trimEnd()}\n5. Taxis: only when no public transport runs; keep the receipt.\n`;
    const changeSet = {
      schemaVersion: '1.0',
      targetType: 'asset',
      mode: 'optimize',
      operations: [{ op: 'upsert', targetType: 'asset', target: { path: POLICY }, payload: { content: improved }, reason: 'Cover taxis.' }],
      impact: { objects: [POLICY_KEY, CHECK_LINES_KEY], counts: { asset: 1 }, riskFlags: ['check-lines applies the new clause'] },
    };
    const summary = 'Added a taxi clause to the expense policy; check-lines reads it.';
    const steps: ScriptStep[] = [
      { toolCalls: [toolCall('builder.refs.find', { locator: { type: 'asset', id: POLICY } }, 'call_refs')] },
      { toolCalls: [toolCall('builder.asset.read', { path: POLICY }, 'call_asset')] },
      { toolCalls: [toolCall('builder.change.stage', { changeSet }, 'call_stage')] },
      finalAnswer(summary),
    ];
    // The request after both reads hangs: the change is staged only after the restart.
    const scripted = await scriptWithHang(s.owner, steps, 2);
    const content = 'Add a clause on taxis to the expense policy.';

    const { end, events } = await turnAcrossRestart(s, scripted, content, 2);
    expect(end.payload).toMatchObject({ responseType: 'change', summary, valid: true, needsManualFix: false, repairs: 0 });
    await expectEachToolRanOnce(s.sessionId, events, ['call_asset', 'call_refs', 'call_stage']);
    const results = await toolResults(scripted);
    expect(results.call_refs).toMatchObject({ ok: true, data: { exists: true, inbound: [{ type: 'step', workflowId: WF, nodeId: 'check-lines' }] } });
    expect(results.call_asset).toMatchObject({ ok: true, data: { path: POLICY, content: original } });

    const state = await expectSummaryOnly(s.owner, s.path, content, summary);
    expect(state.latestSuggestion.files.map((f: any) => [f.key, f.action])).toEqual([[POLICY_KEY, 'M']]);
    expect(state.latestSuggestion.changeSet.impact.objects).toEqual([POLICY_KEY, CHECK_LINES_KEY]);

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
