import { describe, expect, it } from 'vitest';
import type { StepView } from '../../shared/api/index.ts';
import type { ValidationIssue } from '../../shared/bmad/index.ts';
import {
  agentsOf,
  issuesByNode,
  nodesUsingAgent,
  readGraphLoosely,
  stepFilePath,
  stepForNode,
  workflowFilePaths,
  type LooseGraph,
} from './workflow-model.ts';

const node = (id: string, extra: Record<string, unknown> = {}) => ({ id, type: 'step', file: `steps/${id}.md`, title: id, agentId: 'writer', ...extra });
const edge = (from: string, to: string, extra: Record<string, unknown> = {}) => ({ id: `${from}-${to}`, from, to, ...extra });

function graph(nodes: unknown[], edges: unknown[] = [], entryNodeId = 'a'): LooseGraph {
  const read = readGraphLoosely(JSON.stringify({ entryNodeId, nodes, edges }));
  if (!read) throw new Error('fixture graph did not read');
  return read;
}

describe('readGraphLoosely', () => {
  it('reads nodes and edges with their document positions', () => {
    const g = graph([node('a'), node('b', { type: 'end' })], [edge('a', 'b', { label: 'done', isDefault: true, conditionText: 'ok' })]);
    expect(g.entryNodeId).toBe('a');
    expect(g.nodes).toEqual([
      { id: 'a', type: 'step', file: 'steps/a.md', title: 'a', agentId: 'writer', index: 0 },
      { id: 'b', type: 'end', file: 'steps/b.md', title: 'b', agentId: 'writer', index: 1 },
    ]);
    expect(g.edges).toEqual([{ id: 'a-b', from: 'a', to: 'b', label: 'done', isDefault: true, conditionText: 'ok', index: 0 }]);
  });

  it('draws what it can of a schema-invalid graph', () => {
    const g = graph(
      [node('a'), { title: 'no id' }, node('a', { title: 'duplicate' }), 'not a node', node('c', { type: 'robot', title: 7 })],
      [edge('a', 'c'), { from: 'a' }, { from: 'a', to: 'c' }, null],
    );
    // The index stays the position in nodes[], so graph issues at /nodes/4 still find node c.
    expect(g.nodes.map((n) => [n.id, n.type, n.title, n.index])).toEqual([
      ['a', 'step', 'a', 0],
      ['c', 'unknown', '', 4],
    ]);
    expect(g.edges.map((e) => [e.id, e.from, e.to, e.index])).toEqual([
      ['a-c', 'a', 'c', 0],
      ['e2', 'a', 'c', 2],
    ]);
  });

  it('answers null for text that is not a JSON object', () => {
    expect(readGraphLoosely('{"nodes": [')).toBeNull();
    expect(readGraphLoosely('[1, 2]')).toBeNull();
    expect(readGraphLoosely('null')).toBeNull();
  });

  it('reads a JSON object without nodes or edges as an empty graph', () => {
    expect(readGraphLoosely('{}')).toEqual({ entryNodeId: '', nodes: [], edges: [] });
  });
});

describe('stepForNode', () => {
  const steps: StepView[] = [
    { nodeId: 'a', path: 'steps/old-a.md', markdown: '# A (recorded)' },
    { nodeId: 'zz', path: 'steps/a.md', markdown: '# A (by file)' },
  ];

  it('prefers the file the node names, then the step recorded for its id', () => {
    expect(stepForNode(steps, { id: 'a', file: 'steps/a.md' })?.markdown).toBe('# A (by file)');
    expect(stepForNode(steps, { id: 'a', file: 'steps/renamed.md' })?.markdown).toBe('# A (recorded)');
    expect(stepForNode(steps, { id: 'b', file: 'steps/b.md' })).toBeUndefined();
  });

  it('gives a node’s step file path: the stored one, the one the graph names, and none made up for a node naming none', () => {
    expect(stepFilePath(steps, { id: 'a', file: '' })).toBe('steps/old-a.md');
    expect(stepFilePath(steps, { id: 'b', file: 'steps/b.md' })).toBe('steps/b.md');
    expect(stepFilePath(steps, { id: 'b', file: '' })).toBeUndefined();
  });
});

describe('issuesByNode', () => {
  const issue = (severity: 'error' | 'warning', pointer?: string, filePath = 'workflow.graph.json'): ValidationIssue => ({
    severity,
    code: 'SCHEMA_REQUIRED',
    filePath,
    message: `${severity} at ${pointer ?? 'file'}`,
    ...(pointer !== undefined ? { pointer } : {}),
  });

  it('counts each node’s step issues and the graph issues that point into it', () => {
    const g = graph([node('a'), node('b')]);
    const stepIssues = new Map([['b', [issue('warning', '/title', 'steps/b.md')]]]);
    const counts = issuesByNode(g, [issue('error', '/nodes/0/agentId'), issue('error', '/nodes/1'), issue('warning', '/nodes/1/title'), issue('error', '/edges/0')], stepIssues);
    expect([counts.get('a')?.errors, counts.get('a')?.warnings]).toEqual([1, 0]);
    expect([counts.get('b')?.errors, counts.get('b')?.warnings]).toEqual([1, 2]);
    expect(counts.get('b')?.issues.map((i) => i.message)).toEqual(['warning at /title', 'error at /nodes/1', 'warning at /nodes/1/title']);
  });

  it('does not read /nodes/10 as node 1, nor /nodes/1x as a node', () => {
    const g = graph([node('a'), node('b')]);
    const counts = issuesByNode(g, [issue('error', '/nodes/10'), issue('error', '/nodes/1x')], new Map());
    expect([counts.get('a')?.errors, counts.get('b')?.errors]).toEqual([0, 0]);
  });

  it('finds a node by its position in nodes[], even when invalid nodes come before it', () => {
    const g = graph([{ title: 'no id' }, node('b')]);
    expect(issuesByNode(g, [issue('error', '/nodes/1/type')], new Map()).get('b')?.errors).toBe(1);
  });
});

describe('package helpers', () => {
  it('places a workflow’s files in the multi-workflow layout', () => {
    expect(workflowFilePaths('expense-check')).toEqual({
      workflowMd: 'workflows/expense-check/workflow.md',
      graph: 'workflows/expense-check/workflow.graph.json',
    });
  });

  it('reads agents leniently: a broken agents.json has none', () => {
    expect(agentsOf('{"agents": [{"id": "writer"}, 3, null, {"id": "critic"}]}')).toEqual([{ id: 'writer' }, { id: 'critic' }]);
    expect(agentsOf('{"agents": {}}')).toEqual([]);
    expect(agentsOf('not json')).toEqual([]);
  });

  it('lists the nodes an agent works on', () => {
    const g = graph([node('a', { agentId: 'writer' }), node('b', { agentId: 'critic' }), node('c', { agentId: 'writer' })]);
    expect(nodesUsingAgent(g, 'writer').map((n) => n.id)).toEqual(['a', 'c']);
    expect(nodesUsingAgent(null, 'writer')).toEqual([]);
  });
});
