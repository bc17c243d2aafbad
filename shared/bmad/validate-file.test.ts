import { describe, expect, it } from 'vitest';
import { loadExample } from '../../test/spec/examples.ts';
import { validateAgentsJson, validateGraph, validateManifest, validateStepFile, validateWorkflowMd } from './validate-file.ts';
import type { ValidationReport } from './issues.ts';

const hello = loadExample('hello-branch');
const templates = loadExample('_spec-templates');
const where = (report: ValidationReport) => report.issues.map((i) => [i.severity, i.code, i.pointer]);

describe('validateStepFile', () => {
  const step = hello.get('steps/step-03a-greenfield.md')!;

  it('accepts an example step with its context', () => {
    const report = validateStepFile(step, {
      filePath: 'steps/step-03a-greenfield.md',
      nodeId: 'step-03a-greenfield',
      agentIds: ['architect'],
      assetPaths: ['assets/templates/plan-template.md'],
    });
    expect(report).toEqual({ valid: true, schemaFailed: false, issues: [], errors: [], warnings: [] });
  });

  it('checks nodeId, agents and assets only when told about them', () => {
    expect(validateStepFile(step).valid).toBe(true);
    const report = validateStepFile(step, { nodeId: 'other', agentIds: ['pm'], assetPaths: [] });
    expect(where(report)).toEqual([
      ['error', 'STEP_NODE_ID_MISMATCH', '/nodeId'],
      ['error', 'AGENT_NOT_FOUND', '/agentId'],
      ['error', 'ASSET_MISSING', '/inputs/1'],
      ['error', 'ASSET_MISSING', undefined],
    ]);
  });

  it('checks the body and warns against the node', () => {
    const body = step.replace('## Goal', '## Objective');
    const report = validateStepFile(body, { node: { id: 'step-03a-greenfield', type: 'decision', file: 'x' }, successors: [] });
    expect(where(report)).toEqual([
      ['error', 'STEP_MISSING_GOAL', undefined],
      ['warning', 'STEP_TYPE_MISMATCH', '/type'],
      ['warning', 'STEP_TRANSITION_MISMATCH', '/transitions/0/to'],
    ]);
  });

  it('validates the template step (agentId "" means no agent)', () => {
    expect(validateStepFile(templates.get('step.md')!, { agentIds: ['a'] }).errors).toEqual([]);
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
  const graph = hello.get('workflow.graph.json')!;
  const stepPaths = [...hello.keys()].filter((p) => p.startsWith('steps/'));

  it('accepts the example graph', () => {
    expect(validateGraph(graph, { stepPaths, agentIds: ['analyst', 'pm', 'architect', 'summarizer'] }).issues).toEqual([]);
  });

  it('reports graph rules, missing steps and agents', () => {
    const data = JSON.parse(graph);
    data.edges[2].isDefault = false;
    const withoutEnd = stepPaths.filter((p) => p !== 'steps/end-99.md');
    const report = validateGraph(JSON.stringify(data), { stepPaths: withoutEnd, agentIds: ['pm', 'analyst', 'architect'] });
    expect(where(report)).toEqual([
      ['error', 'GRAPH_DEFAULT_EDGE_MISSING', '/nodes/1'],
      ['error', 'STEP_FILE_MISSING', '/nodes/4/file'],
      ['error', 'AGENT_NOT_FOUND', '/nodes/4/agentId'],
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
  it('accepts the examples and the agents template', () => {
    expect(validateAgentsJson(hello.get('agents.json')!).issues).toEqual([]);
    expect(validateAgentsJson(templates.get('agents.json')!).issues).toEqual([]);
    expect(validateManifest(hello.get('bmad.json')!).issues).toEqual([]);
    expect(validateWorkflowMd(hello.get('workflow.md')!, { packagePaths: [...hello.keys()], nodeIds: ['step-01-intake'] }).issues).toEqual([]);
  });

  it('reports duplicate agent ids', () => {
    const data = JSON.parse(hello.get('agents.json')!);
    data.agents[1].id = 'analyst';
    expect(where(validateAgentsJson(JSON.stringify(data)))).toEqual([['error', 'AGENT_DUPLICATE_ID', '/agents/1/id']]);
  });

  it('fails the template workflow.md on updatedAt: "" and warns on its placeholder links', () => {
    const report = validateWorkflowMd(templates.get('workflow.md')!);
    expect(report).toMatchObject({ valid: false, schemaFailed: true });
    expect(where(report)).toEqual([['error', 'SCHEMA_FORMAT', '/updatedAt']]);
    const fixed = templates.get('workflow.md')!.replace('updatedAt: ""', 'updatedAt: "2026-03-02T09:30:00Z"');
    expect(validateWorkflowMd(fixed, { packagePaths: [] }).warnings.map((w) => w.code)).toEqual([
      'WORKFLOW_STEPS_INDEX_BROKEN_LINK',
      'WORKFLOW_STEPS_INDEX_BROKEN_LINK',
      'WORKFLOW_STEPS_INDEX_BROKEN_LINK',
    ]);
  });

  it('refuses unsafe manifest paths', () => {
    const data = JSON.parse(hello.get('bmad.json')!);
    data.entry.workflow = '../workflow.md';
    expect(where(validateManifest(JSON.stringify(data)))).toEqual([['error', 'PATH_UNSAFE', '/entry/workflow']]);
  });
});
