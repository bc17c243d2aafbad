/**
 * The workflow graph rules beyond the schema, as the original builder enforced them (listed in
 * schemas/bmad-v1.1/README.md, "Graph rules"): resolvable entry and edges, one start node that is the entry, cycles only
 * through a decision node that can leave them, one default among several outgoing edges, decisions
 * with at least two edges, unique ids; warnings when no end node or some node is unreachable.
 */
import { isCyclic, reachableFrom, stronglyConnectedComponents } from './graph-algorithms.ts';
import { errorIssue, warningIssue } from './issues.ts';
import type { ValidationIssue } from './issues.ts';
import type { WorkflowGraph } from './models.ts';

const list = (ids: readonly string[]) => ids.map((id) => `"${id}"`).join(', ');

/** The graph as the checks read it: nodes by index, edges resolved to node indexes. */
interface GraphIndex {
  graph: WorkflowGraph;
  filePath: string;
  /** Each id's owner: the first node that has it. */
  indexById: Map<string, number>;
  /** The owners' indexes, in node order; later duplicates take no part in the checks. */
  owners: number[];
  /** The entry node's index, or undefined when entryNodeId names no node. */
  entry: number | undefined;
  /** Per node, the nodes its resolvable edges lead to. */
  successors: number[][];
  /** Per node, how many resolvable edges lead into it. */
  inDegree: number[];
  /** Per node, the indexes of the edges that start at it (the other end may not resolve). */
  outgoing: number[][];
}

export function checkGraph(graph: WorkflowGraph, filePath: string): ValidationIssue[] {
  const { indexById, issues: idIssues } = indexNodeIds(graph, filePath);
  const { unknownEnds, ...adjacency } = resolveEdges(graph, filePath, indexById);
  const index: GraphIndex = {
    graph,
    filePath,
    indexById,
    owners: [...indexById.values()],
    entry: indexById.get(graph.entryNodeId),
    ...adjacency,
  };
  const starts = checkStartNodes(index);
  return [
    ...idIssues,
    ...checkEdgeIds(graph, filePath),
    ...checkEntryExists(index),
    ...unknownEnds,
    ...starts.issues,
    ...checkOutgoingEdges(index),
    ...checkCycles(index),
    ...checkReachability(index, starts.extraStarts),
  ];
}

/** Ids: the first node with an id owns it; later duplicates are errors and take no part below. */
function indexNodeIds(graph: WorkflowGraph, filePath: string): { indexById: Map<string, number>; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const indexById = new Map<string, number>();
  graph.nodes.forEach((node, i) => {
    if (indexById.has(node.id)) {
      issues.push(
        errorIssue('GRAPH_DUPLICATE_NODE_ID', filePath, `Node id "${node.id}" is used by more than one node.`, {
          params: { id: node.id },
          pointer: `/nodes/${i}/id`,
          hint: 'Give every node its own id.',
        }),
      );
    } else indexById.set(node.id, i);
  });
  return { indexById, issues };
}

/** Edge ids are optional, but two edges may not share one. */
function checkEdgeIds(graph: WorkflowGraph, filePath: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const edgeIds = new Set<string>();
  graph.edges.forEach((edge, i) => {
    if (edge.id === undefined) return;
    if (edgeIds.has(edge.id)) {
      issues.push(
        errorIssue('GRAPH_DUPLICATE_EDGE_ID', filePath, `Edge id "${edge.id}" is used by more than one edge.`, {
          params: { id: edge.id },
          pointer: `/edges/${i}/id`,
          hint: 'Give every edge its own id, or remove the id.',
        }),
      );
    }
    edgeIds.add(edge.id);
  });
  return issues;
}

function checkEntryExists({ graph, filePath, indexById, entry }: GraphIndex): ValidationIssue[] {
  if (entry !== undefined) return [];
  return [
    errorIssue('GRAPH_ENTRY_NOT_FOUND', filePath, `entryNodeId "${graph.entryNodeId}" is not the id of any node.`, {
      params: { id: graph.entryNodeId },
      pointer: '/entryNodeId',
      hint: `Use one of: ${list([...indexById.keys()])}.`,
    }),
  ];
}

/** Resolves each edge's ends to node indexes; an end that names no node is an error. */
function resolveEdges(
  graph: WorkflowGraph,
  filePath: string,
  indexById: Map<string, number>,
): Pick<GraphIndex, 'successors' | 'inDegree' | 'outgoing'> & { unknownEnds: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const successors: number[][] = graph.nodes.map(() => []);
  const inDegree = new Array<number>(graph.nodes.length).fill(0);
  const outgoing: number[][] = graph.nodes.map(() => []);
  graph.edges.forEach((edge, i) => {
    const from = indexById.get(edge.from);
    const to = indexById.get(edge.to);
    for (const [end, index] of [['from', from], ['to', to]] as const) {
      if (index === undefined) {
        issues.push(
          errorIssue('GRAPH_EDGE_UNKNOWN_NODE', filePath, `Edge ${i} ${end === 'from' ? 'starts at' : 'leads to'} "${edge[end]}", which is not a node.`, {
            params: { edge: i, id: edge[end] },
            pointer: `/edges/${i}/${end}`,
            hint: 'Point the edge at an existing node id, or delete the edge.',
          }),
        );
      }
    }
    if (from !== undefined) outgoing[from]!.push(i);
    if (from !== undefined && to !== undefined) {
      successors[from]!.push(to);
      inDegree[to]!++;
    }
  });
  return { successors, inDegree, outgoing, unknownEnds: issues };
}

/**
 * Exactly one start node (no incoming edges), and it is the entry. Returns the other start nodes
 * too: they are reported here, so the reachability warning leaves them out.
 */
function checkStartNodes({ graph, filePath, owners, entry, inDegree }: GraphIndex): { issues: ValidationIssue[]; extraStarts: Set<number> } {
  const { nodes, edges } = graph;
  const issues: ValidationIssue[] = [];
  const starts = owners.filter((i) => inDegree[i] === 0);
  if (starts.length === 0) {
    issues.push(
      errorIssue('GRAPH_NO_START_NODE', filePath, 'Every node has an incoming edge, so the workflow has no start.', {
        pointer: entry === undefined ? '/nodes' : '/entryNodeId',
        hint: 'Remove the edges that lead into the entry node; loops must go back to a later node.',
      }),
    );
  } else if (entry !== undefined && inDegree[entry]! > 0) {
    const into = edges.filter((e) => e.to === graph.entryNodeId).map((e) => e.from);
    issues.push(
      errorIssue('GRAPH_START_NOT_ENTRY', filePath, `The entry node "${graph.entryNodeId}" has incoming edges (from ${list(into)}), but ${list(starts.map((i) => nodes[i]!.id))} has none.`, {
        params: { entry: graph.entryNodeId, from: list(into), starts: list(starts.map((i) => nodes[i]!.id)) },
        pointer: '/entryNodeId',
        hint: 'The entry must be the only node without incoming edges: set entryNodeId to the real start, or remove the edges into the entry.',
      }),
    );
  }
  const extraStarts = new Set(starts.length > 1 ? starts.filter((i) => i !== entry) : []);
  for (const i of extraStarts) {
    issues.push(
      errorIssue('GRAPH_MULTIPLE_START_NODES', filePath, `Node "${nodes[i]!.id}" has no incoming edges, so it is a second start node.`, {
        params: { id: nodes[i]!.id },
        pointer: `/nodes/${i}`,
        hint: `Only the entry ("${graph.entryNodeId}") may have no incoming edges: connect an edge into "${nodes[i]!.id}", or delete it.`,
      }),
    );
  }
  return { issues, extraStarts };
}

/** Outgoing edges: one default among several; decisions branch. */
function checkOutgoingEdges({ graph, filePath, owners, outgoing }: GraphIndex): ValidationIssue[] {
  const { nodes, edges } = graph;
  const issues: ValidationIssue[] = [];
  for (const i of owners) {
    const node = nodes[i]!;
    const out = outgoing[i]!;
    if (out.length >= 2) {
      const defaults = out.filter((e) => edges[e]!.isDefault === true);
      if (defaults.length === 0) {
        issues.push(
          errorIssue('GRAPH_DEFAULT_EDGE_MISSING', filePath, `Node "${node.id}" has ${out.length} outgoing edges but none is the default.`, {
            params: { id: node.id, count: out.length },
            pointer: `/nodes/${i}`,
            hint: `Set "isDefault": true on exactly one of the edges from "${node.id}" (labels: ${list(out.map((e) => edges[e]!.label))}).`,
          }),
        );
      }
      for (const extra of defaults.slice(1)) {
        issues.push(
          errorIssue('GRAPH_MULTIPLE_DEFAULT_EDGES', filePath, `Node "${node.id}" has more than one default edge.`, {
            params: { id: node.id },
            pointer: `/edges/${extra}/isDefault`,
            hint: 'Keep "isDefault": true on one edge only.',
          }),
        );
      }
    }
    if (node.type === 'decision' && out.length < 2) {
      issues.push(
        errorIssue('GRAPH_DECISION_TOO_FEW_EDGES', filePath, `Decision node "${node.id}" has ${out.length} outgoing edge${out.length === 1 ? '' : 's'}; a decision needs at least 2.`, {
          params: { id: node.id, count: out.length },
          pointer: `/nodes/${i}`,
          hint: 'Add the other branch, or change the node type to "step".',
        }),
      );
    }
  }
  return issues;
}

/**
 * Cycles: every cycle passes through a decision, and a decision can leave it. A loop left after
 * taking the decisions out has none; a loop with decisions needs one edge from a decision out of it.
 */
function checkCycles({ graph, filePath, indexById, successors }: GraphIndex): ValidationIssue[] {
  const { nodes } = graph;
  const issues: ValidationIssue[] = [];
  const owned = (i: number) => indexById.get(nodes[i]!.id) === i;
  const isDecision = (i: number) => nodes[i]!.type === 'decision';
  for (const component of stronglyConnectedComponents(nodes.length, successors, (i) => owned(i) && !isDecision(i))) {
    if (!isCyclic(component, successors)) continue;
    const ids = component.map((i) => nodes[i]!.id);
    issues.push(
      errorIssue('GRAPH_CYCLE_MISSING_DECISION', filePath, `Nodes ${list(ids)} form a loop without a decision node (cycle-missing-decision).`, {
        params: { nodes: list(ids) },
        pointer: `/nodes/${component[0]}`,
        hint: 'A loop must pass through a decision node that can leave it: make one node of the loop a decision, or remove an edge.',
      }),
    );
  }
  for (const component of stronglyConnectedComponents(nodes.length, successors, owned)) {
    if (!isCyclic(component, successors)) continue;
    const members = new Set(component);
    const decisions = component.filter(isDecision);
    if (decisions.length === 0) continue;
    const exits = decisions.some((d) => successors[d]!.some((to) => !members.has(to)));
    if (!exits) {
      issues.push(
        errorIssue('GRAPH_CYCLE_MISSING_EXIT', filePath, `The loop through ${list(component.map((i) => nodes[i]!.id))} has no way out (cycle-missing-exit).`, {
          params: { nodes: list(component.map((i) => nodes[i]!.id)) },
          pointer: `/nodes/${decisions[0]}`,
          hint: `Add an edge from decision ${list(decisions.map((i) => nodes[i]!.id))} to a node outside the loop.`,
        }),
      );
    }
  }
  return issues;
}

/** Recommended: the entry reaches an end node, and every node is reachable. */
function checkReachability({ graph, filePath, owners, entry, successors }: GraphIndex, extraStarts: ReadonlySet<number>): ValidationIssue[] {
  if (entry === undefined) return [];
  const { nodes } = graph;
  const issues: ValidationIssue[] = [];
  const reached = reachableFrom(entry, successors);
  if (![...reached].some((i) => nodes[i]!.type === 'end')) {
    issues.push(
      warningIssue('GRAPH_END_UNREACHABLE', filePath, `No "end" node can be reached from the entry "${graph.entryNodeId}".`, {
        params: { entry: graph.entryNodeId },
        pointer: '/entryNodeId',
        hint: 'Add an end node and connect the last steps to it.',
      }),
    );
  }
  for (const i of owners) {
    if (reached.has(i) || extraStarts.has(i)) continue;
    issues.push(
      warningIssue('GRAPH_NODE_UNREACHABLE', filePath, `Node "${nodes[i]!.id}" cannot be reached from the entry.`, {
        params: { id: nodes[i]!.id },
        pointer: `/nodes/${i}`,
        hint: 'Connect it from an earlier node, or delete it.',
      }),
    );
  }
  return issues;
}
