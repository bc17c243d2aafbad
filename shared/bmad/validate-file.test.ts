import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../test/fixtures/packages.ts';
import { validateAgentsJson, validateGraph, validateManifest, validateStepFile, validateWorkflowMd } from './validate-file.ts';
import type { ValidationReport } from './issues.ts';

const branching = loadFixture('branching');
const twoWorkflows = loadFixture('two-workflows');
/** branching's workflow.md with `updatedAt: ""`, as a hand-filled template often has it. */
const blankDateWorkflowMd = branching.get('workflow.md')!.replace('runId: ""', 'runId: ""\nupdatedAt: ""');
const where = (report: ValidationReport) => report.issues.map((i) => [i.severity, i.code, i.pointer]);

describe('validateStepFile', () => {
  const step = branching.get('steps/03a-beginner-plan.md')!;

  it('accepts a test package step with its context', () => {
    const report = validateStepFile(step, {
      filePath: 'steps/03a-beginner-plan.md',
      nodeId: 'beginner-plan',
      agentIds: ['advisor'],
      assetPaths: ['assets/templates/study-plan.md'],
    });
    expect(report).toEqual({ valid: true, schemaFailed: false, issues: [], errors: [], warnings: [] });
  });

  it('checks nodeId, agents and assets only when told about them', () => {
    expect(validateStepFile(step).valid).toBe(true);
    const report = validateStepFile(step, { nodeId: 'other', agentIds: ['someone-else'], assetPaths: [] });
    expect(where(report)).toEqual([
      ['error', 'STEP_NODE_ID_MISMATCH', '/nodeId'],
      ['error', 'AGENT_NOT_FOUND', '/agentId'],
      ['error', 'ASSET_MISSING', '/inputs/1'],
      ['error', 'ASSET_MISSING', undefined],
    ]);
  });

  it('checks the body and warns against the node', () => {
    const body = step.replace('## Goal', '## Objective');
    const report = validateStepFile(body, { node: { id: 'beginner-plan', type: 'decision', file: 'x' }, successors: [] });
    expect(where(report)).toEqual([
      ['error', 'STEP_MISSING_GOAL', undefined],
      ['warning', 'STEP_TYPE_MISMATCH', '/type'],
      ['warning', 'STEP_TRANSITION_MISMATCH', '/transitions/0/to'],
    ]);
  });

  it('accepts agentId "" as no agent', () => {
    const noAgent = step.replace('agentId: "advisor"', 'agentId: ""');
    expect(noAgent).not.toBe(step);
    expect(validateStepFile(noAgent, { agentIds: ['a'] }).errors).toEqual([]);
    expect(validateStepFile(step, { agentIds: ['a'] }).errors.map((e) => e.code)).toEqual(['AGENT_NOT_FOUND']);
  });

  it('reports shape problems and stops', () => {
    const report = validateStepFile('---\nschemaVersion: 1.1\nnodeId: 01\ntype: task\n---\n# no sections\n', { filePath: 's.md' });
    expect(report.schemaFailed).toBe(true);
    expect(where(report)).toEqual([
      ['error', 'SCHEMA_TYPE', '/schemaVersion'],
      ['error', 'SCHEMA_TYPE', '/nodeId'],
      ['error', 'SCHEMA_ENUM', '/type'],
    ]);
    expect(report.issues[1]!.hint).toBe('Quote the value in YAML, e.g. nodeId: "1"; unquoted it is read as a whole number.');
  });
});

describe('validateGraph', () => {
  const graph = branching.get('workflow.graph.json')!;
  const stepPaths = [...branching.keys()].filter((p) => p.startsWith('steps/'));

  it('accepts the branching graph', () => {
    expect(validateGraph(graph, { stepPaths, agentIds: ['advisor'] }).issues).toEqual([]);
  });

  it('reports graph rules, missing steps and agents', () => {
    const data = JSON.parse(graph);
    data.edges[2].isDefault = false;
    data.nodes[5].agentId = 'closer';
    const withoutEnd = stepPaths.filter((p) => p !== 'steps/99-finish.md');
    const report = validateGraph(JSON.stringify(data), { stepPaths: withoutEnd, agentIds: ['advisor'] });
    expect(where(report)).toEqual([
      ['error', 'GRAPH_DEFAULT_EDGE_MISSING', '/nodes/1'],
      ['error', 'STEP_FILE_MISSING', '/nodes/5/file'],
      ['error', 'AGENT_NOT_FOUND', '/nodes/5/agentId'],
    ]);
  });

  it('reports JSON syntax errors', () => {
    expect(validateGraph('{"nodes": [}', { filePath: 'g.json' })).toMatchObject({
      schemaFailed: true,
      issues: [{ code: 'JSON_PARSE_ERROR', filePath: 'g.json' }],
    });
  });
});

describe('validateAgentsJson / validateManifest / validateWorkflowMd', () => {
  it('accepts the test packages', () => {
    expect(validateAgentsJson(branching.get('agents.json')!).issues).toEqual([]);
    expect(validateAgentsJson(twoWorkflows.get('agents.json')!).issues).toEqual([]);
    expect(validateManifest(branching.get('bmad.json')!).issues).toEqual([]);
    expect(validateManifest(twoWorkflows.get('bmad.json')!).issues).toEqual([]);
    expect(validateWorkflowMd(branching.get('workflow.md')!, { packagePaths: [...branching.keys()], nodeIds: ['collect-background'] }).issues).toEqual([]);
  });

  it('reports duplicate agent ids', () => {
    const data = JSON.parse(twoWorkflows.get('agents.json')!);
    data.agents[1].id = 'triager';
    expect(where(validateAgentsJson(JSON.stringify(data)))).toEqual([['error', 'AGENT_DUPLICATE_ID', '/agents/1/id']]);
  });

  it('fails a workflow.md on updatedAt: "" and warns on Steps Index links to missing files', () => {
    const report = validateWorkflowMd(blankDateWorkflowMd);
    expect(report).toMatchObject({ valid: false, schemaFailed: true });
    expect(where(report)).toEqual([['error', 'SCHEMA_FORMAT', '/updatedAt']]);
    const fixed = blankDateWorkflowMd.replace('updatedAt: ""', 'updatedAt: "2026-03-02T09:30:00Z"');
    expect(validateWorkflowMd(fixed, { packagePaths: [] }).warnings.map((w) => w.code)).toEqual(Array(6).fill('WORKFLOW_STEPS_INDEX_BROKEN_LINK'));
  });

  it('refuses unsafe manifest paths', () => {
    const data = JSON.parse(branching.get('bmad.json')!);
    data.entry.workflow = '../workflow.md';
    expect(where(validateManifest(JSON.stringify(data)))).toEqual([['error', 'PATH_UNSAFE', '/entry/workflow']]);
  });
});
