// The demo model creating a step: a review step inserted after an existing step, as a new step
// file, a graph node with edges (A → new → B, so the graph stays valid), the predecessor's
// transition moved to the new node, and a line in the Steps Index of workflow.md.

import { jsonText } from './json-text.ts';
import { parseSections, renderSections, splitFrontmatter } from './markdown.ts';
import { draftKey, record, uniqueId, type Edit, type Situation } from './situation.ts';
import { shortenStepEdit, stepUpsert } from './step-edits.ts';
import { wording, type Wording } from './wording.ts';

/** New steps are named after this (quality-review, quality-review-2, …), so a follow-up finds its draft. */
export const NEW_STEP_ID = 'quality-review';

interface GraphNode {
  id: string;
  type?: string;
  file?: string;
  title?: string;
  agentId?: string;
}
interface GraphEdge {
  id?: string;
  from: string;
  to: string;
  label?: string;
  isDefault?: boolean;
}
interface Graph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  [extra: string]: unknown;
}

/** Where the new step goes: on the only edge leaving a non-decision node (preferring one into an end node), else after a node with no way out. */
export function insertionPoint(graph: Graph): { from: GraphNode; edge: GraphEdge | null } | null {
  const outgoing = (id: string) => graph.edges.filter((e) => e.from === id);
  const single = graph.edges.filter((e) => {
    const from = graph.nodes.find((n) => n.id === e.from);
    return from !== undefined && from.type !== 'decision' && outgoing(e.from).length === 1 && graph.nodes.some((n) => n.id === e.to);
  });
  const isEnd = (e: GraphEdge) => graph.nodes.find((n) => n.id === e.to)?.type === 'end';
  const edge = single.find(isEnd) ?? single[0];
  if (edge) return { from: graph.nodes.find((n) => n.id === edge.from)!, edge };
  const last = graph.nodes.find((n) => n.type !== 'decision' && outgoing(n.id).length === 0);
  return last ? { from: last, edge: null } : null;
}

const quoted = (text: string) => JSON.stringify(text);

export function newStepMarkdown(input: { nodeId: string; type: string; title: string; agentId?: string; after: string; next: GraphNode | null; w: Wording }): string {
  const { nodeId, type, title, agentId, after, next, w } = input;
  const front = ['---', 'schemaVersion: "1.1"', `nodeId: ${quoted(nodeId)}`, `type: ${quoted(type)}`, `title: ${quoted(title)}`];
  if (agentId) front.push(`agentId: ${quoted(agentId)}`);
  if (next) front.push('transitions:', `  - to: ${quoted(next.id)}`, '    label: "next"', '    isDefault: true');
  front.push('---');
  const nextTitle = next?.title ?? next?.id ?? after;
  return [
    ...front,
    '',
    `# ${title}`,
    '',
    '## Goal',
    '',
    w.newStepGoal(after, nextTitle),
    '',
    '## Instructions',
    '',
    ...w.newStepInstructions(after).map((line, i) => `${i + 1}. [ ] ${line}`),
    '',
    '## Completion',
    '',
    ...w.newStepCompletion(nodeId, next?.id ?? null),
    '',
  ].join('\n');
}

/** The predecessor's frontmatter with its transition to `oldTo` pointing at `newTo` (text edit, so nothing else moves). */
export function retargetTransition(markdown: string, oldTo: string, newTo: string): string {
  const { frontmatter, body } = splitFrontmatter(markdown);
  const escaped = oldTo.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
  const line = new RegExp(`^(\\s*-?\\s*to:\\s*)(["']?)${escaped}\\2(\\s*)$`, 'mu');
  return `${frontmatter.replace(line, (_m, head: string, q: string, tail: string) => `${head}${q}${newTo}${q}${tail}`)}${body}`;
}

/** workflow.md with a Steps Index line for the new step after the predecessor's line; unchanged when there is no index. */
export function addIndexLine(workflowMd: string, nodes: readonly GraphNode[], after: GraphNode, added: { id: string; file: string; title: string }): string {
  const { frontmatter, body } = splitFrontmatter(workflowMd);
  const sections = parseSections(body);
  const index = sections.find((s) => s.level === 2 && s.title.toLowerCase() === 'steps index');
  if (!index) return workflowMd;
  const links = index.lines.map((line) => /\]\(\s*<?([^)\s>]+)/u.exec(line)?.[1]);
  // Links are relative to workflow.md; a link that ends a node's file tells the folder prefix.
  let prefix: string | undefined;
  for (const link of links) {
    const file = link && nodes.find((n) => n.file?.endsWith(link))?.file;
    if (file) prefix = file.slice(0, file.length - link.length);
    if (prefix !== undefined) break;
  }
  if (prefix === undefined || !added.file.startsWith(prefix)) return workflowMd;
  const line = `- [${added.id}](${added.file.slice(prefix.length)}): ${added.title}`;
  const afterAt = links.findIndex((l) => l !== undefined && after.file?.endsWith(l));
  const lastLink = links.findLastIndex((l) => l !== undefined);
  const at = (afterAt >= 0 ? afterAt : lastLink) + 1;
  const lines = [...index.lines.slice(0, at), line, ...index.lines.slice(at)];
  return `${frontmatter}${renderSections(sections.map((s) => (s === index ? { ...s, lines } : s)))}`;
}

export function stepCreate(s: Situation): Edit {
  const workflowId = s.target.workflowId!;
  const w = wording(s.lang);
  if (s.intent === 'shorter') {
    const own = s.target.targetId;
    const key = draftKey(s, 'step', (id) => (own ? id === `${workflowId}/${own}` : new RegExp(`^${workflowId}/${NEW_STEP_ID}(-\\d+)?$`, 'u').test(id)));
    if (key) return shortenStepEdit(s, workflowId, key.slice(`step:${workflowId}/`.length));
  }
  const read = s.reads.read('builder_workflow_read', { workflowId });
  if (!read.ok) return { kind: 'none', summary: `I could not read workflow "${workflowId}": ${read.message}` };
  const graph = record(read.data['graph']) as unknown as Graph;
  if (!Array.isArray(graph.nodes) || !Array.isArray(graph.edges)) return { kind: 'none', summary: `The graph of workflow "${workflowId}" does not parse, so I cannot link a new step into it.` };
  const point = insertionPoint(graph);
  if (!point) return { kind: 'none', summary: `Every node of workflow "${workflowId}" branches, so I found no single edge to put a new step on.` };
  const { from, edge } = point;
  const nodeId = s.target.targetId ?? uniqueId(NEW_STEP_ID, graph.nodes.map((n) => n.id));
  const next = edge ? (graph.nodes.find((n) => n.id === edge.to) ?? null) : null;
  const folder = from.file && from.file.includes('/') ? from.file.slice(0, from.file.lastIndexOf('/') + 1) : `workflows/${workflowId}/steps/`;
  const file = `${folder}${nodeId}.md`;
  const after = from.title ?? from.id;
  const title = w.newStepTitle(after);
  const type = next ? 'step' : 'end';
  const node: GraphNode = { id: nodeId, type, file, title, ...(from.agentId ? { agentId: from.agentId } : {}) };
  const edges = edge
    ? [...graph.edges.map((e) => (e === edge ? { ...e, to: nodeId } : e)), { id: `e-${nodeId}-${edge.to}`, from: nodeId, to: edge.to, label: 'next' }]
    : [...graph.edges, { id: `e-${from.id}-${nodeId}`, from: from.id, to: nodeId, label: 'next' }];
  const newGraph = { ...graph, nodes: [...graph.nodes, node], edges };
  const stepMarkdown = newStepMarkdown({ nodeId, type, title, ...(from.agentId ? { agentId: from.agentId } : {}), after, next, w });

  const prev = s.reads.read('builder_step_read', { workflowId, nodeId: from.id }, 'markdown');
  const prevBefore = prev.ok ? String(prev.data['markdown']) : null;
  const prevAfter = prevBefore !== null && edge ? retargetTransition(prevBefore, edge.to, nodeId) : prevBefore;
  const workflowMd = typeof read.data['workflowMd'] === 'string' ? (read.data['workflowMd'] as string) : null;
  const newWorkflowMd = workflowMd === null ? null : addIndexLine(workflowMd, graph.nodes, from, { id: nodeId, file, title });

  const operations: unknown[] = [
    {
      op: 'upsert',
      targetType: 'workflow',
      target: { workflowId },
      payload: { graphJson: jsonText(newGraph), ...(newWorkflowMd !== null && newWorkflowMd !== workflowMd ? { workflowMd: newWorkflowMd } : {}) },
      reason: `Adds node "${nodeId}" after "${from.id}"${newWorkflowMd !== workflowMd ? ' and lists it in the Steps Index' : ''}.`,
    },
    stepUpsert(workflowId, nodeId, stepMarkdown, 'The new review step.'),
  ];
  const objects = [`graph:${workflowId}`, `step:${workflowId}/${nodeId}`];
  if (newWorkflowMd !== null && newWorkflowMd !== workflowMd) objects.push(`workflow:${workflowId}`);
  if (prevAfter !== null && prevAfter !== prevBefore) {
    operations.push(stepUpsert(workflowId, from.id, prevAfter, `Its transition now leads to "${nodeId}".`));
    objects.push(`step:${workflowId}/${from.id}`);
  }
  const where = edge ? `between "${from.id}" and "${edge.to}"` : `after "${from.id}"`;
  return {
    kind: 'stage',
    operations,
    objects,
    summary: `Staged a new step "${nodeId}" (${title}) ${where}: a new step file ${file}, its graph node and edges${objects.includes(`workflow:${workflowId}`) ? ', a Steps Index line' : ''}${objects.includes(`step:${workflowId}/${from.id}`) ? `, and the transition of "${from.id}" moved to it` : ''}.`,
  };
}
