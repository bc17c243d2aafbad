// The demo model on an existing step: rewrite `## Instructions` as a numbered checklist, or shorten
// the step; frontmatter and the other required sections stay valid.

import { checklistLines, findSection, isChecklist, parseSections, renderSections, shorterMarkdown, splitFrontmatter } from './markdown.ts';
import type { Edit, Situation } from './situation.ts';
import { wording } from './wording.ts';

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
  const next = checklistStep(markdown, wording(s.lang).checklistIntro);
  if (next === null) {
    return {
      kind: 'none',
      summary: findSection(parseSections(splitFrontmatter(markdown).body), 'Instructions')
        ? `The Instructions of step "${nodeId}" already are a checklist, so I staged nothing. Ask me to "make it shorter" or "undo that".`
        : `Step "${nodeId}" has no "## Instructions" section to rewrite, so I staged nothing.`,
    };
  }
  return {
    kind: 'stage',
    operations: [stepUpsert(workflowId, nodeId, next, 'Instructions as a numbered checklist, easier to follow and to tick off.')],
    objects: [`step:${workflowId}/${nodeId}`],
    summary: `Staged a clearer version of step "${nodeId}": its Instructions are now a numbered checklist of ${countItems(next)} items; frontmatter, Goal and Completion are unchanged.`,
  };
}
