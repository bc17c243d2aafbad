/**
 * The offline demo model (`scripted-demo`, what `npm start` offers without a key) inside workerd: for
 * every target × mode it reads through builder.* tools, stages a real change, validates it and
 * finishes; "make it shorter" stages a second, shorter version; "undo that" leaves nothing staged;
 * the change then applies as a new revision. Also on a second, small Chinese package built here,
 * and on a folder in the BMAD-METHOD layout whose steps have no "## Instructions".
 */
import { env, exports } from 'cloudflare:workers';
import { strToU8, zipSync, type Zippable } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ORIGIN, signedInClient, type TestClient } from './client.ts';
import { connect, importExample, type Watcher } from './sessions.ts';
import { CANARY_KEY, send, turnEnd } from './turns.ts';

interface Combo {
  name: string;
  session: Record<string, unknown>;
  /** Read tools (dotted names) the turn must run besides builder.context.get. */
  reads: string[];
  /** [object key, action] the staged changes must contain. */
  files: Array<[string, 'A' | 'M']>;
  /** The key whose text "make it shorter" shortens. */
  draft: string;
}

const COMBOS: Combo[] = [
  {
    name: 'step optimize',
    session: { workflowId: 'vendor-intake', targetType: 'step', targetId: 'capture-request', mode: 'optimize' },
    reads: ['builder.step.read'],
    files: [['step:vendor-intake/capture-request', 'M']],
    draft: 'step:vendor-intake/capture-request',
  },
  {
    name: 'step create',
    session: { workflowId: 'vendor-intake', targetType: 'step', mode: 'create' },
    reads: ['builder.workflow.read', 'builder.step.read'],
    files: [['step:vendor-intake/quality-review', 'A'], ['graph:vendor-intake', 'M'], ['workflow:vendor-intake', 'M']],
    draft: 'step:vendor-intake/quality-review',
  },
  {
    name: 'agent optimize',
    session: { targetType: 'agent', targetId: 'procurement-analyst', mode: 'optimize' },
    reads: ['builder.agent.read'],
    files: [['agent:procurement-analyst', 'M']],
    draft: 'agent:procurement-analyst',
  },
  {
    name: 'agent create',
    session: { targetType: 'agent', mode: 'create' },
    reads: ['builder.agent.read'],
    files: [['agent:quality-reviewer', 'A']],
    draft: 'agent:quality-reviewer',
  },
  {
    name: 'asset optimize',
    session: { targetType: 'asset', targetId: 'assets/templates/onboarding-summary.md', mode: 'optimize' },
    reads: ['builder.asset.read'],
    files: [['asset:assets/templates/onboarding-summary.md', 'M']],
    draft: 'asset:assets/templates/onboarding-summary.md',
  },
  {
    name: 'asset create',
    session: { targetType: 'asset', mode: 'create' },
    reads: [],
    files: [['asset:assets/notes/review-checklist.md', 'A']],
    draft: 'asset:assets/notes/review-checklist.md',
  },
  {
    name: 'workflow optimize',
    session: { workflowId: 'vendor-intake', targetType: 'workflow', mode: 'optimize' },
    reads: ['builder.workflow.read'],
    files: [['workflow:vendor-intake', 'M']],
    draft: 'workflow:vendor-intake',
  },
  {
    name: 'workflow create',
    session: { targetType: 'workflow', mode: 'create' },
    reads: [],
    files: [['workflow:review-cycle', 'A'], ['graph:review-cycle', 'A'], ['step:review-cycle/prepare', 'A'], ['step:review-cycle/review', 'A'], ['step:review-cycle/close', 'A']],
    draft: 'workflow:review-cycle',
  },
];

async function useDemoModel(client: TestClient): Promise<void> {
  const res = await client.put('/api/users/me/llm-profile', {
    provider: 'openai-compatible',
    preset: 'custom',
    baseUrl: env.SCRIPTED_OPENAI_URL,
    model: 'scripted-demo',
    apiKey: CANARY_KEY,
    timeoutSeconds: 30,
  });
  if (res.status !== 200) throw new Error(`profile failed: ${JSON.stringify(res.error)}`);
}

/** A package given as a file map, imported through the real import route. */
async function importFiles(client: TestClient, files: Record<string, string>): Promise<string> {
  const entries: Zippable = {};
  for (const [path, text] of Object.entries(files)) entries[path] = strToU8(text);
  const form = new FormData();
  form.set('file', new File([new Uint8Array(zipSync(entries))], 'package.bmad', { type: 'application/zip' }));
  form.set('name', `small ${Math.random().toString(36).slice(2, 8)}`);
  const res = await exports.default.fetch(`${ORIGIN}/api/projects/import`, { method: 'POST', headers: { origin: ORIGIN, cookie: client.cookie! }, body: form });
  const json = (await res.json()) as { data: any; error: any };
  if (res.status !== 201) throw new Error(`import failed: ${JSON.stringify(json.error)}`);
  return json.data.project.id as string;
}

/** Send one message and wait for its ending; returns the ending and this turn's events. */
async function turn(client: TestClient, watcher: Watcher, path: string, content: string) {
  const accepted = await send(client, path, content);
  expect(accepted.status).toBe(202);
  const turnId = accepted.data.turnId as string;
  const end = await turnEnd(watcher, turnId);
  const events = watcher.events().filter((e) => e.turnId === turnId || (e.seq > accepted.data.seq && e.seq <= end.seq));
  return { end, events };
}

const toolNames = (events: any[], type: string) => events.filter((e) => e.type === type).map((e) => e.payload.name as string);

/** The turn read, staged a valid change and finished, and every tool call succeeded. */
function expectStagedTurn(end: any, events: any[], reads: string[]): void {
  if (end.type !== 'turn.finished') throw new Error(`turn ended with ${JSON.stringify(end)}`);
  expect(end.payload).toMatchObject({ responseType: 'change', valid: true, needsManualFix: false });
  expect(end.payload.summary).toContain('Staged');
  for (const name of ['builder.context.get', ...reads, 'builder.change.stage', 'builder.change.validate']) {
    expect(toolNames(events, 'tool.started')).toContain(name);
    expect(toolNames(events, 'tool.finished')).toContain(name);
  }
  expect(events.filter((e) => e.type === 'tool.finished' && !e.payload.ok).map((e) => [e.payload.name, e.payload.code])).toEqual([]);
  expect(events.some((e) => e.type === 'change.staged')).toBe(true);
  expect(events.some((e) => e.type === 'change.validated' && e.payload.valid === true)).toBe(true);
}

async function changes(client: TestClient, path: string): Promise<any[]> {
  const res = await client.get(`${path}/changes`);
  expect(res.status).toBe(200);
  return res.data.files as any[];
}

describe('the scripted demo model proposes real changes on the demo project', () => {
  for (const combo of COMBOS) {
    it(`${combo.name}: stages a valid change, shortens it, undoes it, and applies it as a new revision`, async () => {
      const owner = await signedInClient('Owner');
      const projectId = await importExample(owner, 'demo');
      const base = `/api/projects/${projectId}`;
      await useDemoModel(owner);
      const created = await owner.post(`${base}/ai/sessions`, combo.session);
      expect(created.status).toBe(201);
      const path = `${base}/ai/sessions/${created.data.sessionId}`;
      const watcher = await connect(owner, base, created.data.sessionId);

      const first = await turn(owner, watcher, path, 'Please improve this.');
      expectStagedTurn(first.end, first.events, combo.reads);
      const staged = await changes(owner, path);
      expect(staged.map((f) => [f.key, f.action])).toEqual(expect.arrayContaining(combo.files));
      const draftBefore = staged.find((f) => f.key === combo.draft)!.after as string;

      // A follow-up in the same session: a second, shorter version of the draft.
      const second = await turn(owner, watcher, path, 'make it shorter');
      expectStagedTurn(second.end, second.events, []);
      expect(second.end.payload.version).toBe(2);
      const shorter = (await changes(owner, path)).find((f) => f.key === combo.draft)!.after as string;
      expect(shorter.length).toBeLessThan(draftBefore.length);

      // "undo that" discards: nothing is staged any more.
      const third = await turn(owner, watcher, path, 'undo that');
      expect(third.end.type).toBe('turn.finished');
      expect(third.end.payload).toMatchObject({ responseType: 'chat', changeSetId: null });
      expect(toolNames(third.events, 'tool.finished')).toContain('builder.change.discard');
      expect(third.events.some((e) => e.type === 'change.discarded')).toBe(true);
      expect(await changes(owner, path)).toEqual([]);

      // Asked again, it stages the same change, and a person applies it.
      const fourth = await turn(owner, watcher, path, 'Please improve this.');
      expectStagedTurn(fourth.end, fourth.events, combo.reads);
      const again = await changes(owner, path);
      expect(again.find((f) => f.key === combo.draft)!.after).toBe(draftBefore);
      const applied = await owner.post(`${path}/apply`, { changeSetId: fourth.end.payload.changeSetId, confirmSource: 'ui_manual_apply' });
      expect(applied.status).toBe(200);
      expect(applied.data.applied).toBe(true);
      const history = await env.DB.prepare('SELECT object_key, action FROM revision_history WHERE project_id = ? AND change_set_id = ?')
        .bind(projectId, fourth.end.payload.changeSetId)
        .all<{ object_key: string; action: string }>();
      expect(history.results.map((r) => r.object_key)).toEqual(expect.arrayContaining(combo.files.map(([key]) => key)));
      expect(await changes(owner, path)).toEqual([]);
      watcher.close();
    });
  }
});

// A second package, small and in Chinese, built here: the demo is not tied to the demo project.
const SMALL_PACKAGE: Record<string, string> = {
  'bmad.json': JSON.stringify({
    schemaVersion: '1.1',
    name: 'leave-requests',
    version: '1.0.0',
    entry: { workflow: 'workflows/leave/workflow.md', graph: 'workflows/leave/workflow.graph.json', agents: 'agents.json', assetsDir: 'assets/' },
    workflows: [{ id: 'leave', workflow: 'workflows/leave/workflow.md', graph: 'workflows/leave/workflow.graph.json' }],
  }),
  'agents.json': JSON.stringify({
    schemaVersion: '1.1',
    agents: [{ id: 'hr-assistant', metadata: { name: '小林', title: '人事助理', icon: '🗂️' }, persona: { role: '请假审批助理', identity: '熟悉公司请假制度的人事助理。', communication_style: '礼貌、简洁。', principles: ['先核对制度再答复'] } }],
  }),
  'workflows/leave/workflow.md': [
    '---',
    'schemaVersion: "1.1"',
    'workflowType: "leave"',
    'currentNodeId: "collect"',
    'stepsCompleted: []',
    '---',
    '',
    '# 请假审批',
    '',
    '## 目标',
    '',
    '收集员工的请假申请并完成审批。',
    '',
    '## Steps Index',
    '',
    '- [collect](steps/collect.md): 收集申请',
    '- [approve](steps/approve.md): 审批',
    '',
  ].join('\n'),
  'workflows/leave/workflow.graph.json': JSON.stringify({
    schemaVersion: '1.1',
    entryNodeId: 'collect',
    nodes: [
      { id: 'collect', type: 'step', file: 'workflows/leave/steps/collect.md', title: '收集申请', agentId: 'hr-assistant' },
      { id: 'approve', type: 'end', file: 'workflows/leave/steps/approve.md', title: '审批', agentId: 'hr-assistant' },
    ],
    edges: [{ from: 'collect', to: 'approve', label: 'next' }],
  }),
  'workflows/leave/steps/collect.md': [
    '---',
    'schemaVersion: "1.1"',
    'nodeId: "collect"',
    'type: "step"',
    'agentId: "hr-assistant"',
    'transitions:',
    '  - to: "approve"',
    '    label: "next"',
    '    isDefault: true',
    '---',
    '',
    '# 收集申请',
    '',
    '## Goal',
    '',
    '拿到完整的请假申请。',
    '',
    '## Instructions',
    '',
    '询问员工请假的起止日期。确认请假类型。对照 assets/policy.md 检查剩余假期。',
    '',
  ].join('\n'),
  'workflows/leave/steps/approve.md': ['---', 'schemaVersion: "1.1"', 'nodeId: "approve"', 'type: "end"', '---', '', '# 审批', '', '## Goal', '', '给出审批结论。', '', '## Instructions', '', '- 批准或驳回，并说明理由。', ''].join('\n'),
  'assets/policy.md': '# 请假制度\n\n每位员工每年有十天年假。\n',
};

describe('the scripted demo model on another package', () => {
  it('stages valid changes for a step, a new step and an asset of a small Chinese package, writing the added text in Chinese', async () => {
    const owner = await signedInClient('Owner');
    const projectId = await importFiles(owner, SMALL_PACKAGE);
    const base = `/api/projects/${projectId}`;
    await useDemoModel(owner);
    const cases: Array<{ session: Record<string, unknown>; reads: string[]; key: string; action: 'A' | 'M'; text: string }> = [
      { session: { workflowId: 'leave', targetType: 'step', targetId: 'collect', mode: 'optimize' }, reads: ['builder.step.read'], key: 'step:leave/collect', action: 'M', text: '按顺序完成以下清单' },
      { session: { workflowId: 'leave', targetType: 'step', mode: 'create' }, reads: ['builder.workflow.read'], key: 'step:leave/quality-review', action: 'A', text: '复核：收集申请' },
      { session: { targetType: 'asset', targetId: 'assets/policy.md', mode: 'optimize' }, reads: ['builder.asset.read'], key: 'asset:assets/policy.md', action: 'M', text: '## 复核清单' },
    ];
    for (const c of cases) {
      const created = await owner.post(`${base}/ai/sessions`, c.session);
      expect(created.status).toBe(201);
      const path = `${base}/ai/sessions/${created.data.sessionId}`;
      const watcher = await connect(owner, base, created.data.sessionId);
      const { end, events } = await turn(owner, watcher, path, '请改进一下');
      expectStagedTurn(end, events, c.reads);
      const file = (await changes(owner, path)).find((f) => f.key === c.key);
      expect(file?.action).toBe(c.action);
      expect(file?.after).toContain(c.text);
      const applied = await owner.post(`${path}/apply`, { changeSetId: end.payload.changeSetId, confirmSource: 'ui_manual_apply' });
      expect(applied.status).toBe(200);
      watcher.close();
    }
  });
});

// A folder in the BMAD-METHOD layout, built here: its steps have no "## Instructions", only their
// own headings (rules, a task, a sequence of numbered parts), as real BMAD-METHOD steps do.
const BMAD_METHOD_FOLDER: Record<string, string> = {
  'farewell/workflow.md': [
    '---',
    'name: farewell',
    'description: Close a group session warmly.',
    '---',
    '',
    '# Farewell Workflow',
    '',
    '## INITIALIZATION SEQUENCE',
    '',
    '### 1. First Step EXECUTION',
    '',
    'Read fully and follow: `./steps/step-01-gather.md` to begin the workflow.',
    '',
  ].join('\n'),
  'farewell/steps/step-01-gather.md': [
    '---',
    "name: 'step-01-gather'",
    "description: 'Gather the highlights'",
    "nextStepFile: './step-02-close.md'",
    '---',
    '',
    '# Step 1: Gather the Highlights',
    '',
    '## YOUR TASK:',
    '',
    'Collect what the group found most useful.',
    '',
    '## GATHERING SEQUENCE:',
    '',
    '### 1. Ask the Group',
    '',
    'Ask each person for one highlight.',
    '',
    '### 2. Write Them Down',
    '',
    'Keep the highlights in a short list.',
    '',
    '### 3. Present MENU OPTIONS',
    '',
    'Display: **Select an Option:** [C] Continue',
    '',
    '- IF C: load {nextStepFile}',
    '',
  ].join('\n'),
  'farewell/steps/step-02-close.md': [
    '---',
    "name: 'step-02-close'",
    "description: 'Close the session'",
    '---',
    '',
    '# Step 2: Close the Session',
    '',
    '## CONTEXT BOUNDARIES:',
    '',
    '- The highlights are gathered',
    '',
    '## YOUR TASK:',
    '',
    'Thank everyone and end the session.',
    '',
  ].join('\n'),
};

describe('the scripted demo model on an imported BMAD-METHOD folder', () => {
  it('stages and applies a visible improvement of a step with no "## Instructions", written in BMAD-METHOD\'s own headings', async () => {
    const owner = await signedInClient('Owner');
    const projectId = await importFiles(owner, BMAD_METHOD_FOLDER);
    const base = `/api/projects/${projectId}`;
    await useDemoModel(owner);
    const graph = JSON.parse((await owner.get(`${base}/workflows/farewell`)).data.workflow.graphJson as string) as { nodes: Array<{ id: string; file: string }> };
    const nodeOf = (file: string) => graph.nodes.find((n) => n.file.endsWith(file))!.id;
    const cases = [
      { nodeId: nodeOf('step-01-gather.md'), text: '## GATHERING SEQUENCE:\n\nWork through this checklist in order; tick each item before you move on:\n\n1. [ ] Ask the Group\n2. [ ] Write Them Down\n3. [ ] Present MENU OPTIONS\n' },
      { nodeId: nodeOf('step-02-close.md'), text: 'Thank everyone and end the session.\n\n## Before you start\n\n1. [ ] ' },
    ];
    for (const c of cases) {
      const created = await owner.post(`${base}/ai/sessions`, { workflowId: 'farewell', targetType: 'step', targetId: c.nodeId, mode: 'optimize' });
      expect(created.status).toBe(201);
      const path = `${base}/ai/sessions/${created.data.sessionId}`;
      const watcher = await connect(owner, base, created.data.sessionId);
      const { end, events } = await turn(owner, watcher, path, 'Optimize this step');
      expectStagedTurn(end, events, ['builder.step.read']);
      const file = (await changes(owner, path)).find((f) => f.key === `step:farewell/${c.nodeId}`);
      expect(file?.action).toBe('M');
      expect(file?.after).toContain(c.text);
      const applied = await owner.post(`${path}/apply`, { changeSetId: end.payload.changeSetId, confirmSource: 'ui_manual_apply' });
      expect(applied.status).toBe(200);
      expect(applied.data.applied).toBe(true);
      watcher.close();
    }
  });
});
