import { describe, expect, it } from 'vitest';
import { checkGraph } from './graph-rules.ts';
import type { GraphEdge, GraphNode, NodeType, WorkflowGraph } from './models.ts';

const node = (id: string, type: NodeType = 'step'): GraphNode => ({ id, type, file: `steps/${id}.md` });
const edge = (from: string, to: string, extra: Partial<GraphEdge> = {}): GraphEdge => ({ from, to, label: 'next', ...extra });

function graph(nodes: GraphNode[], edges: GraphEdge[], entryNodeId = nodes[0]!.id): WorkflowGraph {
  return { schemaVersion: '1.1', entryNodeId, nodes, edges };
}

const check = (g: WorkflowGraph) => checkGraph(g, 'workflow.graph.json');
const summary = (g: WorkflowGraph) => check(g).map((i) => [i.severity, i.code, i.pointer]);

/** a → d(decision) → b → end, d → c → end */
const branching = () =>
  graph(
    [node('a'), node('d', 'decision'), node('b'), node('c'), node('end', 'end')],
    [edge('a', 'd'), edge('d', 'b', { isDefault: true }), edge('d', 'c'), edge('b', 'end'), edge('c', 'end')],
  );

describe('checkGraph', () => {
  it('accepts a well-formed branching graph', () => {
    expect(check(branching())).toEqual([]);
  });

  it('reports an entry that is not a node', () => {
    const g = branching();
    g.entryNodeId = 'nope';
    expect(summary(g)).toContainEqual(['error', 'GRAPH_ENTRY_NOT_FOUND', '/entryNodeId']);
  });

  it('reports edges whose ends are not nodes', () => {
    const g = branching();
    g.edges.push(edge('ghost', 'end'), edge('b', 'phantom'));
    expect(summary(g)).toEqual(
      expect.arrayContaining([
        ['error', 'GRAPH_EDGE_UNKNOWN_NODE', '/edges/5/from'],
        ['error', 'GRAPH_EDGE_UNKNOWN_NODE', '/edges/6/to'],
      ]),
    );
  });

  it('reports duplicate node and edge ids', () => {
    const g = branching();
    g.nodes.push(node('b'));
    g.edges[0]!.id = 'e1';
    g.edges[1]!.id = 'e1';
    expect(summary(g)).toEqual(
      expect.arrayContaining([
        ['error', 'GRAPH_DUPLICATE_NODE_ID', '/nodes/5/id'],
        ['error', 'GRAPH_DUPLICATE_EDGE_ID', '/edges/1/id'],
      ]),
    );
  });

  it('reports a second start node', () => {
    const g = branching();
    g.nodes.push(node('stray'));
    g.edges.push(edge('stray', 'end'));
    expect(summary(g)).toEqual([['error', 'GRAPH_MULTIPLE_START_NODES', '/nodes/5']]);
  });

  it('reports an entry that is not the start node', () => {
    expect(summary(graph([node('a'), node('b'), node('end', 'end')], [edge('a', 'b'), edge('b', 'end')], 'b'))).toEqual([
      ['error', 'GRAPH_START_NOT_ENTRY', '/entryNodeId'],
      ['warning', 'GRAPH_NODE_UNREACHABLE', '/nodes/0'],
    ]);
  });

  it('reports a graph without a start node', () => {
    const g = graph(
      [node('d', 'decision'), node('b'), node('end', 'end')],
      [edge('d', 'b', { isDefault: true }), edge('d', 'end'), edge('b', 'd')],
    );
    expect(summary(g)).toContainEqual(['error', 'GRAPH_NO_START_NODE', '/entryNodeId']);
  });

  it('reports a loop without a decision node (cycle-missing-decision)', () => {
    const g = graph(
      [node('a'), node('b'), node('c'), node('end', 'end')],
      [edge('a', 'b'), edge('b', 'c'), edge('c', 'b', { isDefault: true }), edge('c', 'end')],
    );
    const issues = check(g);
    expect(issues.map((i) => [i.code, i.pointer])).toEqual([['GRAPH_CYCLE_MISSING_DECISION', '/nodes/1']]);
    expect(issues[0]!.message).toBe('Nodes "b", "c" form a loop without a decision node (cycle-missing-decision).');
  });

  it('reports a self-loop on a step', () => {
    const g = graph([node('a'), node('b'), node('end', 'end')], [edge('a', 'b'), edge('b', 'b', { isDefault: true }), edge('b', 'end')]);
    expect(summary(g)).toEqual([['error', 'GRAPH_CYCLE_MISSING_DECISION', '/nodes/1']]);
  });

  it('finds the decision-free loop inside a larger loop that has a decision', () => {
    // b ⇄ c loops without the decision; b → d → b loops through it.
    const g = graph(
      [node('a'), node('b'), node('c'), node('d', 'decision'), node('end', 'end')],
      [
        edge('a', 'b'),
        edge('b', 'c', { isDefault: true }),
        edge('b', 'd'),
        edge('c', 'b'),
        edge('d', 'b', { isDefault: true }),
        edge('d', 'end'),
      ],
    );
    expect(summary(g)).toEqual([['error', 'GRAPH_CYCLE_MISSING_DECISION', '/nodes/1']]);
  });

  it('reports a loop whose decision cannot leave it (cycle-missing-exit), even if a step can', () => {
    const g = graph(
      [node('a'), node('b'), node('d', 'decision'), node('c'), node('end', 'end')],
      [
        edge('a', 'b'),
        edge('b', 'd'),
        edge('d', 'b', { isDefault: true }),
        edge('d', 'c'),
        edge('c', 'b', { isDefault: true }),
        edge('c', 'end'),
      ],
    );
    const issues = check(g);
    expect(issues.map((i) => [i.code, i.pointer])).toEqual([['GRAPH_CYCLE_MISSING_EXIT', '/nodes/2']]);
    expect(issues[0]!.hint).toBe('Add an edge from decision "d" to a node outside the loop.');
  });

  it('accepts a loop that a decision can leave', () => {
    const g = graph(
      [node('a'), node('b'), node('d', 'decision'), node('end', 'end')],
      [edge('a', 'b'), edge('b', 'd'), edge('d', 'b'), edge('d', 'end', { isDefault: true })],
    );
    expect(check(g)).toEqual([]);
  });

  it('requires exactly one default among several outgoing edges', () => {
    const none = branching();
    none.edges[1]!.isDefault = false;
    expect(summary(none)).toEqual([['error', 'GRAPH_DEFAULT_EDGE_MISSING', '/nodes/1']]);
    const two = branching();
    two.edges[2]!.isDefault = true;
    expect(summary(two)).toEqual([['error', 'GRAPH_MULTIPLE_DEFAULT_EDGES', '/edges/2/isDefault']]);
  });

  it('requires a decision to have at least two outgoing edges', () => {
    const g = graph([node('a'), node('d', 'decision'), node('end', 'end')], [edge('a', 'd'), edge('d', 'end')]);
    const [issue] = check(g);
    expect(issue).toMatchObject({ code: 'GRAPH_DECISION_TOO_FEW_EDGES', pointer: '/nodes/1', severity: 'error' });
  });

  it('warns when no end node is reachable', () => {
    const g = graph([node('a'), node('b')], [edge('a', 'b')]);
    expect(summary(g)).toEqual([['warning', 'GRAPH_END_UNREACHABLE', '/entryNodeId']]);
  });

  it('handles a long chain without recursion', () => {
    const n = 20000;
    const nodes = Array.from({ length: n }, (_, i) => node(`n${i}`, i === n - 1 ? 'end' : 'step'));
    const edges = nodes.slice(1).map((to, i) => edge(`n${i}`, to.id));
    edges.push(edge(`n${n - 2}`, 'n0', { isDefault: true }));
    expect(summary(graph(nodes, edges))).toEqual([
      ['error', 'GRAPH_NO_START_NODE', '/entryNodeId'],
      ['error', 'GRAPH_CYCLE_MISSING_DECISION', '/nodes/0'],
    ]);
  });
});
