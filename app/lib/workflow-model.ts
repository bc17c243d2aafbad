/**
 * Pure helpers the workflow page and the agent editor read a stored workflow with: a lenient
 * view of the graph (so a schema-invalid graph still draws), which step file
 * belongs to which node, and the per-node validation counts. No Svelte, no I/O.
 */
import type { StepView } from '../../shared/api/index.ts';
import { NODE_TYPES, type NodeType } from '../../shared/bmad/models.ts';
import type { ValidationIssue } from '../../shared/bmad/issues.ts';

export interface LooseNode {
  id: string;
  /** One of NODE_TYPES, or `unknown` when the graph names something else. */
  type: NodeType | 'unknown';
  file: string;
  title: string;
  agentId: string;
  /** Position in `nodes[]`: graph issues point at `/nodes/<index>`. */
  index: number;
}

export interface LooseEdge {
  id: string;
  from: string;
  to: string;
  label: string;
  isDefault: boolean;
  conditionText: string;
  index: number;
}

export interface LooseGraph {
  entryNodeId: string;
  nodes: LooseNode[];
  edges: LooseEdge[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * Whatever of the graph can be drawn: nodes with a string id, edges whose ends are strings.
 * `null` when the text is not a JSON object at all (validation says why).
 */
export function readGraphLoosely(jsonText: string): LooseGraph | null {
  let value: unknown;
  try {
    value = JSON.parse(jsonText);
  } catch {
    return null;
  }
  if (!isRecord(value)) return null;
  const seen = new Set<string>();
  const nodes: LooseNode[] = [];
  (Array.isArray(value.nodes) ? value.nodes : []).forEach((raw: unknown, index: number) => {
    if (!isRecord(raw) || typeof raw.id !== 'string' || raw.id === '' || seen.has(raw.id)) return;
    seen.add(raw.id);
    const type = (NODE_TYPES as readonly string[]).includes(str(raw.type)) ? (raw.type as NodeType) : 'unknown';
    nodes.push({ id: raw.id, type, file: str(raw.file), title: str(raw.title), agentId: str(raw.agentId), index });
  });
  const edges: LooseEdge[] = [];
  (Array.isArray(value.edges) ? value.edges : []).forEach((raw: unknown, index: number) => {
    if (!isRecord(raw) || typeof raw.from !== 'string' || typeof raw.to !== 'string') return;
    edges.push({
      id: str(raw.id) || `e${index}`,
      from: raw.from,
      to: raw.to,
      label: str(raw.label),
      isDefault: raw.isDefault === true,
      conditionText: str(raw.conditionText),
      index,
    });
  });
  return { entryNodeId: str(value.entryNodeId), nodes, edges };
}

export interface Point {
  x: number;
  y: number;
}

/** The stored step file of a node: the one at `node.file`, else the one recorded for its id. */
export function stepForNode(steps: readonly StepView[], node: Pick<LooseNode, 'id' | 'file'>): StepView | undefined {
  return steps.find((s) => s.path === node.file) ?? steps.find((s) => s.nodeId === node.id);
}

/**
 * The path of a node's step file: the stored file's, else the one the graph names (not stored
 * yet: saving creates it there). Undefined for a node that names none and has none stored: no
 * path is made up for it.
 */
export function stepFilePath(steps: readonly StepView[], node: Pick<LooseNode, 'id' | 'file'>): string | undefined {
  return stepForNode(steps, node)?.path ?? (node.file || undefined);
}

export interface IssueCounts {
  errors: number;
  warnings: number;
  issues: ValidationIssue[];
}

const NODE_POINTER = /^\/nodes\/(\d+)(?:\/|$)/;

/**
 * Issues per node id: the node's own step-file issues plus the graph issues that point at
 * `/nodes/<index>` of that node.
 */
export function issuesByNode(
  graph: LooseGraph,
  graphIssues: readonly ValidationIssue[],
  stepIssues: ReadonlyMap<string, readonly ValidationIssue[]>,
): Map<string, IssueCounts> {
  const byIndex = new Map(graph.nodes.map((n) => [n.index, n.id]));
  const result = new Map<string, IssueCounts>();
  for (const node of graph.nodes) result.set(node.id, { errors: 0, warnings: 0, issues: [...(stepIssues.get(node.id) ?? [])] });
  for (const issue of graphIssues) {
    const match = NODE_POINTER.exec(issue.pointer ?? '');
    const id = match ? byIndex.get(Number(match[1])) : undefined;
    if (id !== undefined) result.get(id)!.issues.push(issue);
  }
  for (const counts of result.values()) {
    counts.errors = counts.issues.filter((i) => i.severity === 'error').length;
    counts.warnings = counts.issues.length - counts.errors;
  }
  return result;
}

/** Where a stored workflow's files sit in an exported package (the multi-workflow layout). */
export function workflowFilePaths(workflowId: string): { workflowMd: string; graph: string } {
  return { workflowMd: `workflows/${workflowId}/workflow.md`, graph: `workflows/${workflowId}/workflow.graph.json` };
}

/** The agents of an agents.json text, read leniently (a broken file reads as none). */
export function agentsOf(agentsJson: string): Array<Record<string, unknown>> {
  try {
    const value: unknown = JSON.parse(agentsJson);
    if (isRecord(value) && Array.isArray(value.agents)) return value.agents.filter(isRecord);
  } catch {
    // validation reports the broken file
  }
  return [];
}

/** Nodes of a graph whose `agentId` is the given agent. */
export function nodesUsingAgent(graph: LooseGraph | null, agentId: string): LooseNode[] {
  return graph ? graph.nodes.filter((n) => n.agentId === agentId) : [];
}
