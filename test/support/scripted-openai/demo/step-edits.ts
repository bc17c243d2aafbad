// The demo model on an existing step: rewrite `## Instructions` as a numbered checklist, or shorten
// the step; frontmatter and the other required sections stay valid. A step written to BMAD-METHOD's
// own conventions (no Instructions: `## YOUR TASK:`, an `## … SEQUENCE:` of numbered `### 1. …`
// parts) gets a checklist of its numbered parts at the top of that section, or, with no numbered
// parts, a short "Before you start" checklist after its task.

import { checklistLines, findSection, isChecklist, parseSections, renderSections, shorterMarkdown, splitFrontmatter, type Section } from './markdown.ts';
import type { Edit, Situation } from './situation.ts';
import { wording, type Wording } from './wording.ts';

/** The step with its Instructions as a checklist; null when it has none or already is one. */
export function checklistStep(markdown: string, intro: string): string | null {
  const { frontmatter, body } = splitFrontmatter(markdown);
  const sections = parseSections(body);
  const instructions = findSection(sections, 'Instructions');
  if (!instructions || isChecklist(instructions.lines, intro)) return null;
  const lines = checklistLines(instructions.lines, intro);
  const next = sections.map((s) => (s === instructions ? { ...s, lines } : s));
  return `${frontmatter}${renderSections(next)}`;
}

const NUMBERED_PART = /^###[ \t]+(\d+)[.)][ \t]+(.+?)[ \t#]*$/u;
const FENCE = /^\s*(```|~~~)/u;

/** The titles of a section's numbered `### 1. …` parts, outside code fences, without trailing colons or emphasis. */
function numberedParts(lines: readonly string[]): string[] {
  const parts: string[] = [];
  let fenced = false;
  for (const line of lines) {
    if (FENCE.test(line)) fenced = !fenced;
    const match = fenced ? null : NUMBERED_PART.exec(line);
    if (match) parts.push(match[2]!.replace(/[*_`]/gu, '').replace(/[:：]\s*$/u, '').trim());
  }
  return parts.filter((p) => p !== '');
}

/** A level-2 title as BMAD writes it, for matching: lower case, no trailing colon. */
const bmadTitle = (section: Section) => section.title.replace(/[:：]\s*$/u, '').trim().toLowerCase();

export type BmadStepEdit = { kind: 'sequence'; markdown: string; section: string; parts: number } | { kind: 'before'; markdown: string };

/**
 * A BMAD-style step (no `## Instructions`) made easier to follow: a checklist of the numbered parts
 * of its sequence section (the one named "… sequence", else the first with two or more parts) at
 * the top of that section; with no numbered parts, a "Before you start" checklist after its task
 * or goal (else before its first section). Every other line stays as written; null when the step
 * already has what this would add.
 */
export function bmadStepImproved(markdown: string, w: Wording): BmadStepEdit | null {
  const { frontmatter, body } = splitFrontmatter(markdown);
  const sections = parseSections(body);
  const level2 = sections.filter((s) => s.level === 2);
  const withParts = level2.filter((s) => numberedParts(s.lines).length >= 2);
  const sequence = withParts.find((s) => bmadTitle(s).endsWith('sequence')) ?? withParts[0];
  if (sequence) {
    if (isChecklist(sequence.lines, w.checklistIntro)) return null;
    const parts = numberedParts(sequence.lines);
    const rest = sequence.lines.slice(sequence.lines.findIndex((l) => l.trim() !== ''));
    const lines = ['', w.checklistIntro, '', ...parts.map((p, i) => `${i + 1}. [ ] ${p}`), '', ...rest];
    const next = sections.map((s) => (s === sequence ? { ...s, lines } : s));
    return { kind: 'sequence', markdown: `${frontmatter}${renderSections(next)}`, section: sequence.title.replace(/[:：]\s*$/u, '').trim(), parts: parts.length };
  }
  if (level2.some((s) => bmadTitle(s) === w.beforeYouStartTitle.toLowerCase())) return null;
  const added: Section = { heading: `## ${w.beforeYouStartTitle}`, title: w.beforeYouStartTitle, level: 2, lines: ['', ...w.stepBeforeYouStart, ''] };
  const task = level2.find((s) => /^(your task|(step )?goal|task)$/u.test(bmadTitle(s)));
  const at = task ? sections.indexOf(task) + 1 : Math.max(1, sections.findIndex((s) => s.level === 2));
  const before = sections[at - 1]!;
  if (before.lines.at(-1) !== '') before.lines.push('');
  const next = at >= sections.length ? [...sections, added] : [...sections.slice(0, at), added, ...sections.slice(at)];
  return { kind: 'before', markdown: `${frontmatter}${renderSections(next)}` };
}

/** A shorter step: every section cut down (first sentences, at most five entries); null when that changes nothing. */
export function shorterStep(markdown: string): string | null {
  return shorterMarkdown(markdown);
}

export function stepUpsert(workflowId: string, nodeId: string, stepMarkdown: string, reason: string) {
  return { op: 'upsert', targetType: 'step', target: { workflowId, nodeId }, payload: { stepMarkdown }, reason };
}

function countItems(markdown: string): number {
  const instructions = findSection(parseSections(splitFrontmatter(markdown).body), 'Instructions');
  return instructions?.lines.filter((l) => /^\d+\.\s/u.test(l)).length ?? 0;
}

/** Shorten one staged or stored step (used by the step create follow-up too). */
export function shortenStepEdit(s: Situation, workflowId: string, nodeId: string): Edit {
  const read = s.reads.read('builder_step_read', { workflowId, nodeId }, 'markdown');
  if (!read.ok) return { kind: 'none', summary: `I could not read step "${nodeId}": ${read.message}` };
  const markdown = String(read.data['markdown']);
  const shorter = shorterStep(markdown);
  if (shorter === null) return { kind: 'none', summary: `Step "${nodeId}" is already as short as I can make it without losing a required section.` };
  return {
    kind: 'stage',
    operations: [stepUpsert(workflowId, nodeId, shorter, 'A shorter version of the current draft.')],
    objects: [`step:${workflowId}/${nodeId}`],
    summary: `Staged a shorter version of step "${nodeId}" (${markdown.length} → ${shorter.length} characters): every section cut to its first sentences, the frontmatter unchanged.`,
  };
}

export function stepOptimize(s: Situation): Edit {
  const workflowId = s.target.workflowId!;
  const nodeId = s.target.targetId!;
  if (s.intent === 'shorter') return shortenStepEdit(s, workflowId, nodeId);
  const read = s.reads.read('builder_step_read', { workflowId, nodeId }, 'markdown');
  if (!read.ok) return { kind: 'none', summary: `I could not read step "${nodeId}": ${read.message}` };
  const markdown = String(read.data['markdown']);
  if (!findSection(parseSections(splitFrontmatter(markdown).body), 'Instructions')) return bmadStepOptimize(nodeId, workflowId, markdown, wording(s.lang));
  const next = checklistStep(markdown, wording(s.lang).checklistIntro);
  if (next === null) {
    return {
      kind: 'none',
      summary: `The Instructions of step "${nodeId}" already are a checklist, so I staged nothing. Ask me to "make it shorter" or "undo that".`,
    };
  }
  return {
    kind: 'stage',
    operations: [stepUpsert(workflowId, nodeId, next, 'Instructions as a numbered checklist, easier to follow and to tick off.')],
    objects: [`step:${workflowId}/${nodeId}`],
    summary: `Staged a clearer version of step "${nodeId}": its Instructions are now a numbered checklist of ${countItems(next)} items; frontmatter, Goal and Completion are unchanged.`,
  };
}

/** The optimize of a step with no `## Instructions`, written in BMAD-METHOD's own way. */
function bmadStepOptimize(nodeId: string, workflowId: string, markdown: string, w: Wording): Edit {
  const improved = bmadStepImproved(markdown, w);
  if (improved === null) {
    return {
      kind: 'none',
      summary: `Step "${nodeId}" already has the checklist I would add, so I staged nothing. Ask me to "make it shorter" or "undo that".`,
    };
  }
  const objects = [`step:${workflowId}/${nodeId}`];
  if (improved.kind === 'sequence') {
    return {
      kind: 'stage',
      operations: [stepUpsert(workflowId, nodeId, improved.markdown, `A checklist of the ${improved.parts} numbered parts at the top of "${improved.section}", to follow and tick off.`)],
      objects,
      summary: `Staged a clearer version of step "${nodeId}": "${improved.section}" now opens with a checklist of its ${improved.parts} numbered parts; frontmatter and every other line are unchanged.`,
    };
  }
  return {
    kind: 'stage',
    operations: [stepUpsert(workflowId, nodeId, improved.markdown, 'A short checklist of what to check before the step starts.')],
    objects,
    summary: `Staged a clearer version of step "${nodeId}": a "${w.beforeYouStartTitle}" checklist after its task; frontmatter and every other section are unchanged.`,
  };
}
