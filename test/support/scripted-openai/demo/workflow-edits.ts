// The demo model on workflows: improve workflow.md (a "Before you start" checklist before the Steps
// Index), shorten it (the Steps Index kept whole), or create a new workflow of three steps in a line.

import type { Lang } from './conversation.ts';
import { jsonText } from './json-text.ts';
import { parseSections, renderSections, shorterMarkdown, splitFrontmatter } from './markdown.ts';
import { draftKey, record, stringList, uniqueId, type Edit, type Situation } from './situation.ts';
import { wording } from './wording.ts';

export const NEW_WORKFLOW_ID = 'review-cycle';

/** workflow.md with a "Before you start" section before the Steps Index (or at the end); null when it is there. */
export function improveWorkflowMd(workflowMd: string, lang: Lang): string | null {
  const w = wording(lang);
  const { frontmatter, body } = splitFrontmatter(workflowMd);
  const sections = parseSections(body);
  if (sections.some((s) => s.level === 2 && s.title === w.beforeYouStartTitle)) return null;
  const added = { heading: `## ${w.beforeYouStartTitle}`, title: w.beforeYouStartTitle, level: 2, lines: ['', ...w.beforeYouStart, ''] };
  const at = sections.findIndex((s) => s.level === 2 && s.title.toLowerCase() === 'steps index');
  if (at < 0) {
    const last = sections.at(-1)!;
    if (last.lines.at(-1) !== '') last.lines.push('');
    return `${frontmatter}${renderSections([...sections, added])}`;
  }
  const before = sections[at - 1];
  if (before && before.lines.at(-1) !== '') before.lines.push('');
  return `${frontmatter}${renderSections([...sections.slice(0, at), added, ...sections.slice(at)])}`;
}

export function shorterWorkflowMd(workflowMd: string): string | null {
  return shorterMarkdown(workflowMd, ['Steps Index']);
}

/** The files of a new three-step workflow: prepare → review → close (an end node). */
export function newWorkflowFiles(workflowId: string, lang: Lang, agentId: string | undefined) {
  const w = wording(lang).newWorkflow;
  const q = JSON.stringify;
  const steps = w.steps.map((step, i) => {
    const next = w.steps[i + 1];
    const type = next ? 'step' : 'end';
    const front = ['---', 'schemaVersion: "1.1"', `nodeId: ${q(step.id)}`, `type: ${q(type)}`, `title: ${q(step.title)}`];
    if (agentId) front.push(`agentId: ${q(agentId)}`);
    if (next) front.push('transitions:', `  - to: ${q(next.id)}`, '    label: "next"', '    isDefault: true');
    const markdown = [...front, '---', '', `# ${step.title}`, '', '## Goal', '', step.goal, '', '## Instructions', '', ...step.instructions.map((t, n) => `${n + 1}. ${t}`), ''].join('\n');
    return { nodeId: step.id, type, title: step.title, file: `workflows/${workflowId}/steps/${step.id}.md`, markdown };
  });
  const graph = {
    schemaVersion: '1.1',
    entryNodeId: steps[0]!.nodeId,
    nodes: steps.map((s) => ({ id: s.nodeId, type: s.type, file: s.file, title: s.title, ...(agentId ? { agentId } : {}) })),
    edges: steps.slice(1).map((s, i) => ({ id: `e-${steps[i]!.nodeId}-${s.nodeId}`, from: steps[i]!.nodeId, to: s.nodeId, label: 'next' })),
  };
  const workflowMd = [
    '---',
    'schemaVersion: "1.1"',
    `workflowType: ${q(workflowId)}`,
    `currentNodeId: ${q(steps[0]!.nodeId)}`,
    'stepsCompleted: []',
    'variables: {}',
    'decisionLog: []',
    'artifacts: []',
    '---',
    '',
    `# ${w.title}`,
    '',
    '## Goal',
    '',
    w.goal,
    '',
    '## How to run',
    '',
    ...w.howToRun.map((t, n) => `${n + 1}. ${t}`),
    '',
    '## Steps Index',
    '',
    ...steps.map((s) => `- [${s.nodeId}](steps/${s.nodeId}.md): ${s.title}`),
    '',
  ].join('\n');
  return { workflowMd, graphJson: jsonText(graph), steps };
}

function workflowUpsert(workflowId: string, payload: Record<string, unknown>, reason: string) {
  return { op: 'upsert', targetType: 'workflow', target: { workflowId }, payload, reason };
}

function readWorkflowMd(s: Situation, workflowId: string): string | { error: string } {
  const read = s.reads.read('builder_workflow_read', { workflowId });
  if (!read.ok) return { error: `I could not read workflow "${workflowId}": ${read.message}` };
  return typeof read.data['workflowMd'] === 'string' ? (read.data['workflowMd'] as string) : { error: `Workflow "${workflowId}" has no workflow.md to edit.` };
}

function shortenEdit(s: Situation, workflowId: string): Edit {
  const md = readWorkflowMd(s, workflowId);
  if (typeof md !== 'string') return { kind: 'none', summary: md.error };
  const shorter = shorterWorkflowMd(md);
  if (shorter === null) return { kind: 'none', summary: `workflow.md of "${workflowId}" is already as short as I can make it.` };
  return {
    kind: 'stage',
    operations: [workflowUpsert(workflowId, { workflowMd: shorter }, 'A shorter workflow.md; the Steps Index is kept whole.')],
    objects: [`workflow:${workflowId}`],
    summary: `Staged a shorter workflow.md for "${workflowId}" (${md.length} → ${shorter.length} characters); frontmatter and Steps Index unchanged.`,
  };
}

export function workflowOptimize(s: Situation): Edit {
  const workflowId = s.target.targetId ?? s.target.workflowId!;
  if (s.intent === 'shorter') return shortenEdit(s, workflowId);
  const md = readWorkflowMd(s, workflowId);
  if (typeof md !== 'string') return { kind: 'none', summary: md.error };
  const improved = improveWorkflowMd(md, s.lang);
  if (improved === null) return { kind: 'none', summary: `workflow.md of "${workflowId}" already has the "${wording(s.lang).beforeYouStartTitle}" checklist, so I staged nothing.` };
  return {
    kind: 'stage',
    operations: [workflowUpsert(workflowId, { workflowMd: improved }, 'A short checklist of what to have ready before the first step.')],
    objects: [`workflow:${workflowId}`],
    summary: `Staged an improved workflow.md for "${workflowId}": a "${wording(s.lang).beforeYouStartTitle}" checklist before the Steps Index; frontmatter, graph and steps unchanged.`,
  };
}

export function workflowCreate(s: Situation): Edit {
  const own = s.target.targetId ?? s.target.workflowId;
  if (s.intent === 'shorter') {
    const key = draftKey(s, 'workflow', (id) => (own ? id === own : new RegExp(`^${NEW_WORKFLOW_ID}(-\\d+)?$`, 'u').test(id)));
    if (key) return shortenEdit(s, key.slice('workflow:'.length));
  }
  const snapshot = record(s.context['target_snapshot']);
  const workflowId = own ?? uniqueId(NEW_WORKFLOW_ID, stringList(snapshot['existingWorkflowIds']));
  const agents = record(s.context['dependency_digest'])['agents'];
  const agentId = Array.isArray(agents) ? (agents.map((a) => record(a)['id']).find((id) => typeof id === 'string') as string | undefined) : undefined;
  const files = newWorkflowFiles(workflowId, s.lang, agentId);
  const operations = [
    workflowUpsert(workflowId, { workflowMd: files.workflowMd, graphJson: files.graphJson }, 'A new workflow of three steps in a line.'),
    ...files.steps.map((step) => ({ op: 'upsert', targetType: 'step', target: { workflowId, nodeId: step.nodeId }, payload: { stepMarkdown: step.markdown }, reason: `Step "${step.title}".` })),
  ];
  return {
    kind: 'stage',
    operations,
    objects: [`workflow:${workflowId}`, `graph:${workflowId}`, ...files.steps.map((step) => `step:${workflowId}/${step.nodeId}`)],
    summary: `Staged a new workflow "${workflowId}" with three steps (${files.steps.map((step) => step.nodeId).join(' → ')}): workflow.md with a Steps Index, workflow.graph.json with two edges, and three step files${agentId ? ` run by agent "${agentId}"` : ''}.`,
  };
}
