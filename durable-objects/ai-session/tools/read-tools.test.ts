/** The read-only builder.* tools over an effective view built from a real example package. */
import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../../test/fixtures/packages.ts';
import { packageFromFiles, toMultiWorkflowLayout } from '../../../shared/bmad/index.ts';
import type { Baseline, OverlayEntry } from '../../../shared/ai/overlay.ts';
import type { SessionMeta } from '../../../shared/ai/session.ts';
import type { ToolEnvelope } from '../../../shared/ai/tool-envelope.ts';
import { contentOf, createEffectiveView } from '../overlay/effective-view.ts';
import { READ_TOOLS, type ReadToolContext, type ReadToolName } from './read-tools.ts';

const EC = 'ticket-triage';
const pkg = toMultiWorkflowLayout(packageFromFiles(loadFixture('two-workflows')));
const baseline: Baseline = { projectId: 'p1', pkg, revisions: { workflows: { [EC]: 12, 'weekly-report': 3 }, agents: 4, assets: 7 } };
const POLICY = pkg.assets.find((a) => a.path === 'assets/policies/support-policy.md')!.content;
const DOMAIN = { industryDomain: 'Finance', targetUsers: 'Auditors', painPoints: '', expectedOutcomes: '', qualityStyle: '' };

const put = (key: string, content: string): OverlayEntry => ({ key, deleted: false, content, baseRevision: 1, baseHash: null });
const del = (key: string): OverlayEntry => ({ key, deleted: true, content: '', baseRevision: 1, baseHash: null });

function session(overrides: Partial<SessionMeta> = {}): SessionMeta {
  return {
    sessionId: 's1',
    projectId: 'p1',
    workflowId: EC,
    targetType: 'step',
    targetId: 'classify-issue',
    mode: 'optimize',
    createdBy: 'u1',
    createdAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

function context(entries: OverlayEntry[] = [], meta: Partial<SessionMeta> = {}): ReadToolContext {
  return { view: createEffectiveView(baseline, entries), session: session(meta), domainProfile: DOMAIN };
}

/** Parse the raw arguments with the tool's schema, as the tool host does, then run it. */
function call(ctx: ReadToolContext, name: ReadToolName, raw: unknown): ToolEnvelope<any> {
  const tool = READ_TOOLS[name];
  const args = tool.args.parse(raw);
  return (tool.run as (c: ReadToolContext, a: unknown) => ToolEnvelope<any>)(ctx, args);
}

function errorCode(envelope: ToolEnvelope): string | undefined {
  return envelope.ok ? undefined : envelope.error.code;
}

const MINIMAL_ARGS: Record<ReadToolName, Record<string, unknown>> = {
  'builder.context.get': {},
  'builder.workflow.read': { workflowId: EC },
  'builder.step.read': { workflowId: EC, nodeId: 'classify-issue' },
  'builder.agent.read': { agentId: 'triager' },
  'builder.asset.read': { path: 'assets/policies/support-policy.md' },
  'builder.refs.find': { locator: { type: 'asset', id: 'assets/policies/support-policy.md' } },
};

describe('every read tool', () => {
  const names = Object.keys(READ_TOOLS) as ReadToolName[];

  it('is named as its table key and describes each argument', () => {
    expect(names).toEqual(['builder.context.get', 'builder.workflow.read', 'builder.step.read', 'builder.agent.read', 'builder.asset.read', 'builder.refs.find']);
    for (const name of names) {
      expect(READ_TOOLS[name].name).toBe(name);
      expect(READ_TOOLS[name].description.length).toBeGreaterThan(10);
      const shape = READ_TOOLS[name].args.shape as Record<string, { description?: string }>;
      for (const [field, schema] of Object.entries(shape)) expect(schema.description, `${name}.${field}`).toBeTruthy();
    }
  });

  it('refuses another project with AI_TOOL_FORBIDDEN, and accepts its own', () => {
    for (const name of names) {
      expect(errorCode(call(context(), name, { ...MINIMAL_ARGS[name], projectId: 'p2' })), name).toBe('AI_TOOL_FORBIDDEN');
      expect(errorCode(call(context(), name, { ...MINIMAL_ARGS[name], projectId: 7 })), name).toBe('AI_TOOL_FORBIDDEN');
      expect(call(context(), name, { ...MINIMAL_ARGS[name], projectId: 'p1' }).ok, name).toBe(true);
      expect(call(context(), name, MINIMAL_ARGS[name]).ok, name).toBe(true);
    }
    const denied = call(context(), 'builder.step.read', { ...MINIMAL_ARGS['builder.step.read'], projectId: 'p2' });
    expect(denied).toMatchObject({ ok: false, data: null, error: { message: 'Tools can only read the project of this session.' } });
  });

  it('rejects unknown arguments (strict schemas)', () => {
    for (const name of names) expect(READ_TOOLS[name].args.safeParse({ ...MINIMAL_ARGS[name], extra: 1 }).success, name).toBe(false);
  });
});

describe('builder.context.get', () => {
  it('gives the seven-part envelope for a step target, with asset paths but no asset contents', () => {
    const result = call(context(), 'builder.context.get', {});
    expect(result.ok).toBe(true);
    const envelope = result.data;
    expect(Object.keys(envelope)).toEqual([
      'session_meta',
      'domain_profile',
      'normative_baseline',
      'target_snapshot',
      'dependency_digest',
      'tool_capabilities',
      'revision_info',
    ]);
    expect(envelope.session_meta).toEqual({ sessionId: 's1', projectId: 'p1', workflowId: EC, targetType: 'step', targetId: 'classify-issue', mode: 'optimize' });
    expect(envelope.domain_profile).toEqual(DOMAIN);
    expect(envelope.normative_baseline.rules.join('\n')).toContain('## Goal');
    expect(envelope.target_snapshot).toMatchObject({
      exists: true,
      nodeId: 'classify-issue',
      path: `workflows/${EC}/steps/classify-issue.md`,
      markdown: contentOf(pkg, `step:${EC}/classify-issue`),
      frontmatter: { nodeId: 'classify-issue', agentId: 'triager' },
      truncated: false,
    });
    expect(envelope.dependency_digest).toMatchObject({
      inEdges: [{ from: 'receive-ticket', label: 'next' }, { from: 'ask-customer', label: 'retry' }],
      outEdges: [{ to: 'decide-details', label: 'next' }],
      variableKeys: [],
      assetPaths: [{ path: 'assets/policies/support-policy.md', exists: true }],
      agents: [{ id: 'triager', exists: true }],
    });
    expect(JSON.stringify(envelope)).not.toContain(POLICY.split('\n')[2]!);
    expect(envelope.tool_capabilities.apply).toBe(false);
    expect(envelope.tool_capabilities.tools).toContain('builder.change.stage');
    expect(envelope.tool_capabilities.tools).not.toContain('builder.change.apply');
    expect(envelope.revision_info).toEqual({ baseline: { workflow: { workflowId: EC, revision: 12 }, agents: 4, assets: 7 }, stagedKeys: [] });
    expect(result.meta).toEqual({ revision: 12, staged: false });
  });

  it('shows the staged version of the target and lists the staged keys', () => {
    const staged = contentOf(pkg, `step:${EC}/classify-issue`)!.replace('Check every line', 'Check each and every line');
    const result = call(context([put(`step:${EC}/classify-issue`, staged), put('asset:assets/x.md', 'x')]), 'builder.context.get', {});
    expect(result.data.target_snapshot.markdown).toBe(staged);
    expect(result.data.revision_info.stagedKeys).toEqual(['asset:assets/x.md', `step:${EC}/classify-issue`]);
    expect(result.meta.staged).toBe(true);
  });

  it('summarises a workflow target: frontmatter, graph, node and agent index', () => {
    const { data } = call(context([], { targetType: 'workflow', targetId: 'weekly-report', workflowId: 'weekly-report' }), 'builder.context.get', {});
    expect(data.target_snapshot).toMatchObject({
      exists: true,
      workflowId: 'weekly-report',
      frontmatter: { workflowType: 'weekly-report', title: expect.any(String) },
      graph: { entryNodeId: 'export-tickets', edges: expect.arrayContaining([{ from: 'export-tickets', to: 'count-backlog', label: 'next' }]) },
    });
    expect(data.target_snapshot.graph.nodes[0]).toEqual({ id: 'export-tickets', type: 'step', title: expect.any(String), agentId: 'reporter' });
    expect(data.dependency_digest.nodes.map((n: { nodeId: string }) => n.nodeId)).toEqual(['export-tickets', 'count-backlog', 'explain-trends', 'publish']);
    expect(data.dependency_digest.agents.map((a: { id: string }) => a.id)).toEqual(['reporter', 'supervisor']);
    expect(data.revision_info.baseline.workflow).toEqual({ workflowId: 'weekly-report', revision: 3 });
  });

  it('describes an agent target with the agent ids and the nodes that use it', () => {
    const { data } = call(context([], { targetType: 'agent', targetId: 'supervisor', workflowId: null }), 'builder.context.get', {});
    expect(data.target_snapshot).toMatchObject({ exists: true, agentId: 'supervisor', agent: { id: 'supervisor' } });
    expect(data.dependency_digest.agentIds).toEqual(['triager', 'reporter', 'supervisor']);
    expect(data.dependency_digest.referencedBy).toContainEqual({ type: 'step', workflowId: 'weekly-report', nodeId: 'publish' });
    expect(data.revision_info.baseline).toEqual({ agents: 4 });
  });

  it('describes an asset target with its content, the steps using it and the file rules', () => {
    const { data } = call(context([], { targetType: 'asset', targetId: 'assets/policies/support-policy.md', workflowId: null }), 'builder.context.get', {});
    expect(data.target_snapshot).toMatchObject({ exists: true, content: POLICY, truncated: false });
    expect(data.dependency_digest.referencedBy).toEqual([{ type: 'step', workflowId: EC, nodeId: 'classify-issue' }]);
    expect(data.dependency_digest.constraints).toMatchObject({ allowedExtensions: ['.md', '.txt', '.json', '.yaml', '.yml', '.csv'], current: { count: 2 } });
    expect(data.revision_info.baseline).toEqual({ assets: 7 });
  });

  it('says exists: false with hints when creating something new', () => {
    const step = call(context([], { mode: 'create', targetId: 'new-step' }), 'builder.context.get', {});
    expect(step.data.target_snapshot).toMatchObject({
      exists: false,
      nodeId: 'new-step',
      suggestedPath: `workflows/${EC}/steps/new-step.md`,
      existingNodeIds: expect.arrayContaining(['classify-issue']),
    });
    expect(step.meta).toEqual({ revision: 12, staged: false });
    // An id with a character Windows refuses in a file name: the suggested file has a portable name, the id stays.
    const colon = call(context([], { mode: 'create', targetId: 'review:final' }), 'builder.context.get', {});
    expect(colon.data.target_snapshot).toMatchObject({ exists: false, nodeId: 'review:final', suggestedPath: `workflows/${EC}/steps/review_final.md` });
    const workflow = call(context([], { mode: 'create', targetType: 'workflow', targetId: null, workflowId: null }), 'builder.context.get', {});
    expect(workflow.data.target_snapshot).toMatchObject({ exists: false, workflowId: null, existingWorkflowIds: [EC, 'weekly-report'] });
    expect(workflow.meta).toEqual({ revision: null, staged: false });
    const asset = call(context([], { mode: 'create', targetType: 'asset', targetId: 'assets/../x.md', workflowId: null }), 'builder.context.get', {});
    expect(asset.data.target_snapshot).toMatchObject({ exists: false, pathProblem: expect.stringContaining('..') });
  });

  it('refuses another session id', () => {
    expect(errorCode(call(context(), 'builder.context.get', { sessionId: 'other' }))).toBe('AI_TOOL_FORBIDDEN');
    expect(call(context(), 'builder.context.get', { sessionId: 's1' }).ok).toBe(true);
  });
});

describe('builder.workflow.read', () => {
  it('returns workflow.md, the graph parsed and as text, and the steps', () => {
    const result = call(context(), 'builder.workflow.read', { workflowId: EC });
    const workflow = pkg.workflows.find((w) => w.id === EC)!;
    expect(result.data).toMatchObject({ workflowId: EC, workflowMd: workflow.workflowMd, graphJson: workflow.graphJson, revision: 12 });
    expect(result.data.graph).toEqual(JSON.parse(workflow.graphJson!));
    expect(result.data.steps[1]).toEqual({ nodeId: 'classify-issue', path: `workflows/${EC}/steps/classify-issue.md`, title: 'Classify the issue' });
    expect(result.meta).toEqual({ revision: 12, staged: false });
  });

  it('is marked staged when anything of the workflow is staged, and shows a missing step file', () => {
    const result = call(context([del(`step:${EC}/closed`)]), 'builder.workflow.read', { workflowId: EC });
    expect(result.meta.staged).toBe(true);
    expect(result.data.steps.find((s: { nodeId: string }) => s.nodeId === 'closed')).toMatchObject({ missing: true, path: `workflows/${EC}/steps/closed.md` });
  });

  it('reads a workflow that exists only in the overlay', () => {
    const result = call(context([put('workflow:fresh', '# Fresh\n')]), 'builder.workflow.read', { workflowId: 'fresh' });
    expect(result.data).toMatchObject({ workflowId: 'fresh', workflowMd: '# Fresh\n', graph: null, graphJson: null, steps: [], revision: 0 });
    expect(result.meta).toEqual({ revision: 0, staged: true });
  });

  it('answers WORKFLOW_NOT_FOUND with the workflows that exist', () => {
    const result = call(context(), 'builder.workflow.read', { workflowId: 'nope' });
    expect(result).toMatchObject({ ok: false, error: { code: 'WORKFLOW_NOT_FOUND', hints: [`Existing workflows: ${EC}, weekly-report.`] } });
  });
});

describe('builder.step.read', () => {
  it('reads the overlay first, the baseline otherwise', () => {
    const staged = '---\nschemaVersion: "1.1"\nnodeId: "classify-issue"\ntype: "step"\n---\n\n## Goal\n\nNew.\n';
    const ctx = context([put(`step:${EC}/classify-issue`, staged)]);
    const read = call(ctx, 'builder.step.read', { workflowId: EC, nodeId: 'classify-issue' });
    expect(read.data).toEqual({
      workflowId: EC,
      nodeId: 'classify-issue',
      path: `workflows/${EC}/steps/classify-issue.md`,
      markdown: staged,
      totalChars: staged.length,
      offset: 0,
      truncated: false,
      frontmatter: { schemaVersion: '1.1', nodeId: 'classify-issue', type: 'step' },
      revision: 12,
    });
    expect(read.meta).toEqual({ revision: 12, staged: true });
    const other = call(ctx, 'builder.step.read', { workflowId: EC, nodeId: 'closed' });
    expect(other.data.markdown).toBe(contentOf(pkg, `step:${EC}/closed`));
    expect(other.meta.staged).toBe(false);
  });

  it('gives frontmatter null when the step has none', () => {
    const read = call(context([put(`step:${EC}/closed`, 'just text')]), 'builder.step.read', { workflowId: EC, nodeId: 'closed' });
    expect(read.data.frontmatter).toBeNull();
  });

  it('answers STEP_NOT_FOUND for unknown and deleted steps, WORKFLOW_NOT_FOUND for unknown workflows', () => {
    const unknown = call(context(), 'builder.step.read', { workflowId: EC, nodeId: 'nope' });
    expect(errorCode(unknown)).toBe('STEP_NOT_FOUND');
    expect(unknown.ok ? [] : unknown.error.hints).toEqual([expect.stringContaining('classify-issue')]);
    const deleted = call(context([del(`step:${EC}/closed`)]), 'builder.step.read', { workflowId: EC, nodeId: 'closed' });
    expect(deleted).toMatchObject({ ok: false, error: { code: 'STEP_NOT_FOUND', message: expect.stringContaining('has no step file') } });
    expect(errorCode(call(context(), 'builder.step.read', { workflowId: 'nope', nodeId: 'closed' }))).toBe('WORKFLOW_NOT_FOUND');
  });

  it('windows a long step', () => {
    const long = `---\nschemaVersion: "1.1"\nnodeId: "closed"\ntype: "end"\n---\n${'x'.repeat(20_000)}`;
    const ctx = context([put(`step:${EC}/closed`, long)]);
    const first = call(ctx, 'builder.step.read', { workflowId: EC, nodeId: 'closed' });
    expect(first.data).toMatchObject({ totalChars: long.length, offset: 0, truncated: true, nextOffset: 12_000, frontmatter: { nodeId: 'closed' } });
    expect(first.data.markdown).toHaveLength(12_000);
    expect(first.meta.hint).toBe('Call builder.step.read with offset=12000 to read more.');
    const rest = call(ctx, 'builder.step.read', { workflowId: EC, nodeId: 'closed', offset: 12_000, limit: 32_000 });
    expect(first.data.markdown + rest.data.markdown).toBe(long);
    expect(rest.data.nextOffset).toBeUndefined();
    expect(rest.meta.hint).toBeUndefined();
  });
});

describe('builder.agent.read', () => {
  it('reads an agent, the staged one first', () => {
    const base = call(context(), 'builder.agent.read', { agentId: 'triager' });
    expect(base.data).toEqual({ agentId: 'triager', agent: JSON.parse(contentOf(pkg, 'agent:triager')!), revision: 4 });
    expect(base.meta).toEqual({ revision: 4, staged: false });
    const replaced = { ...base.data.agent, systemPrompt: 'Be strict.' };
    const staged = call(context([put('agent:triager', JSON.stringify(replaced))]), 'builder.agent.read', { agentId: 'triager' });
    expect(staged.data.agent).toEqual(replaced);
    expect(staged.meta.staged).toBe(true);
  });

  it('answers AGENT_NOT_FOUND for unknown and deleted agents', () => {
    const unknown = call(context(), 'builder.agent.read', { agentId: 'nope' });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'AGENT_NOT_FOUND', hints: ['Existing agents: triager, reporter, supervisor.'] } });
    expect(errorCode(call(context([del('agent:triager')]), 'builder.agent.read', { agentId: 'triager' }))).toBe('AGENT_NOT_FOUND');
  });

  it('shows a staged agent that is not JSON as its raw text', () => {
    const result = call(context([put('agent:triager', '{ broken')]), 'builder.agent.read', { agentId: 'triager' });
    expect(result).toMatchObject({ ok: true, data: { agentId: 'triager', agent: null, raw: '{ broken' }, meta: { staged: true, hint: expect.any(String) } });
  });
});

describe('builder.asset.read', () => {
  it('reads an asset and a staged new one', () => {
    const base = call(context(), 'builder.asset.read', { path: 'assets/policies/support-policy.md' });
    expect(base.data).toEqual({ path: 'assets/policies/support-policy.md', content: POLICY, totalChars: POLICY.length, offset: 0, truncated: false });
    expect(base.meta).toEqual({ revision: 7, staged: false });
    const added = call(context([put('asset:assets/notes/new.md', '# New\n')]), 'builder.asset.read', { path: 'assets/notes/new.md' });
    expect(added.data.content).toBe('# New\n');
    expect(added.meta.staged).toBe(true);
  });

  it('refuses paths outside assets/ with ASSET_INVALID_PATH', () => {
    for (const path of ['../secrets.md', 'assets/../agents.json', '/etc/passwd', 'agents.json', 'assets/a\\b.md', 'assets/x.exe']) {
      const result = call(context(), 'builder.asset.read', { path });
      expect(errorCode(result), path).toBe('ASSET_INVALID_PATH');
      expect(result.ok ? [] : result.error.hints, path).toHaveLength(1);
    }
  });

  it('answers ASSET_NOT_FOUND with the assets that exist, also for a staged deletion', () => {
    const missing = call(context(), 'builder.asset.read', { path: 'assets/nope.md' });
    expect(missing).toMatchObject({
      ok: false,
      error: { code: 'ASSET_NOT_FOUND', hints: ['Existing assets: assets/data/sla-targets.yaml, assets/policies/support-policy.md.'] },
    });
    const deleted = call(context([del('asset:assets/data/sla-targets.yaml')]), 'builder.asset.read', { path: 'assets/data/sla-targets.yaml' });
    expect(errorCode(deleted)).toBe('ASSET_NOT_FOUND');
  });

  it('lists at most 20 ids in a not-found hint', () => {
    const many = Array.from({ length: 25 }, (_, i) => put(`asset:assets/many/${String(i).padStart(2, '0')}.md`, 'x'));
    const result = call(context(many), 'builder.asset.read', { path: 'assets/nope.md' });
    const hint = result.ok ? '' : result.error.hints![0]!;
    expect(hint.split(', ')).toHaveLength(20);
    expect(hint).toContain('(and 7 more)');
  });

  it('windows a long asset, and refuses a limit above 32,000', () => {
    const long = 'abcdefghij'.repeat(5_000);
    const ctx = context([put('asset:assets/long.md', long)]);
    const first = call(ctx, 'builder.asset.read', { path: 'assets/long.md' });
    expect(first.data).toMatchObject({ totalChars: 50_000, offset: 0, truncated: true, nextOffset: 12_000 });
    expect(first.meta.hint).toBe('Call builder.asset.read with offset=12000 to read more.');
    const second = call(ctx, 'builder.asset.read', { path: 'assets/long.md', offset: 12_000, limit: 32_000 });
    expect(second.data).toMatchObject({ offset: 12_000, truncated: true, nextOffset: 44_000 });
    const third = call(ctx, 'builder.asset.read', { path: 'assets/long.md', offset: 44_000 });
    expect(third.data.nextOffset).toBeUndefined();
    expect(first.data.content + second.data.content + third.data.content).toBe(long);
    expect(READ_TOOLS['builder.asset.read'].args.safeParse({ path: 'assets/long.md', limit: 40_000 }).success).toBe(false);
  });
});

describe('builder.refs.find', () => {
  it('finds the steps that reference an asset', () => {
    const result = call(context(), 'builder.refs.find', { locator: { type: 'asset', id: 'assets/policies/support-policy.md' } });
    expect(result.data).toEqual({
      locator: { type: 'asset', id: 'assets/policies/support-policy.md' },
      exists: true,
      inbound: [{ type: 'step', workflowId: EC, nodeId: 'classify-issue' }],
      outbound: [],
    });
    expect(result.meta).toEqual({ revision: 7, staged: false });
  });

  it("finds a step's references both ways, in the session's workflow by default", () => {
    const result = call(context(), 'builder.refs.find', { locator: { type: 'step', id: 'decide-details' } });
    expect(result.data).toMatchObject({
      locator: { type: 'step', id: 'decide-details', workflowId: EC },
      exists: true,
      inbound: [{ type: 'workflow', workflowId: EC }, { type: 'step', workflowId: EC, nodeId: 'classify-issue' }],
      outbound: [
        { type: 'step', workflowId: EC, nodeId: 'ask-customer' },
        { type: 'step', workflowId: EC, nodeId: 'decide-severity' },
        { type: 'agent', agentId: 'triager' },
      ],
    });
    expect(result.meta.revision).toBe(12);
  });

  it('finds the users of an agent and the parts of a workflow', () => {
    const agent = call(context(), 'builder.refs.find', { locator: { type: 'agent', id: 'reporter' } });
    expect(agent.data.inbound.map((r: { nodeId: string }) => r.nodeId)).toEqual(['count-backlog', 'explain-trends', 'export-tickets']);
    const workflow = call(context(), 'builder.refs.find', { locator: { type: 'workflow', id: 'weekly-report' } });
    expect(workflow.data.outbound).toContainEqual({ type: 'agent', agentId: 'supervisor' });
  });

  it('reads the overlay: a staged step that mentions a missing asset makes it found, with exists: false', () => {
    const edited = `${contentOf(pkg, `step:${EC}/closed`)!}\nSee @pkg/assets/missing.md.\n`;
    const result = call(context([put(`step:${EC}/closed`, edited)]), 'builder.refs.find', { locator: { type: 'asset', id: 'assets/missing.md' } });
    expect(result.data).toMatchObject({ exists: false, inbound: [{ type: 'step', workflowId: EC, nodeId: 'closed' }] });
  });

  it('answers not-found and invalid-path errors', () => {
    const find = (locator: Record<string, unknown>, meta: Partial<SessionMeta> = {}) => errorCode(call(context([], meta), 'builder.refs.find', { locator }));
    expect(find({ type: 'asset', id: 'assets/unused.md' })).toBe('ASSET_NOT_FOUND');
    expect(find({ type: 'asset', id: '../../etc/passwd' })).toBe('ASSET_INVALID_PATH');
    expect(find({ type: 'agent', id: 'ghost' })).toBe('AGENT_NOT_FOUND');
    expect(find({ type: 'workflow', id: 'ghost' })).toBe('WORKFLOW_NOT_FOUND');
    expect(find({ type: 'step', id: 'ghost' })).toBe('STEP_NOT_FOUND');
    expect(find({ type: 'step', id: 'closed', workflowId: 'ghost' })).toBe('WORKFLOW_NOT_FOUND');
    expect(find({ type: 'step', id: 'closed' }, { workflowId: null, targetType: 'agent' })).toBe('VALIDATION_FAILED');
  });
});
