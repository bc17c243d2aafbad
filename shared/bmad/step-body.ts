/**
 * Rules for the Markdown body of a step file: `## Goal` and `## Instructions` are required,
 * `## Completion` is optional; headings match case-insensitively and may carry a parenthesised
 * suffix (`## Completion (Document-as-State)`). An empty section is a warning.
 */
import { errorIssue, warningIssue } from './issues.ts';
import type { ValidationIssue } from './issues.ts';
import { isBlankContent, markdownSections, titleMatches } from './markdown-sections.ts';

const SECTIONS = [
  { name: 'Goal', required: true, code: 'STEP_MISSING_GOAL', write: 'what this step achieves', bmad: '## YOUR TASK:' },
  { name: 'Instructions', required: true, code: 'STEP_MISSING_INSTRUCTIONS', write: 'how this step is done', bmad: '## … SEQUENCE:' },
  { name: 'Completion', required: false, code: null, write: 'when this step is complete', bmad: null },
] as const;

export interface StepBodyOptions {
  /**
   * The step was imported from the BMAD-METHOD layout (frontmatter `origin: bmad-method`): its own
   * headings count (`## STEP GOAL:` or `## YOUR TASK:` as the goal, `## Sequence of Instructions` or
   * a `## … SEQUENCE:` as the instructions), and a missing section is a warning, not an error,
   * because BMAD steps are written to their own conventions (shared/bmad-method/README.md). An
   * inline step (`<step n goal="…">` … `</step>`) has its goal in the attribute and its
   * instructions in the text it holds.
   */
  bmadMethod?: boolean;
}

/**
 * BMAD-METHOD's names for the sections. The goal: `## STEP GOAL:`, or `## YOUR TASK:` (the one
 * sentence of what the step is for, in most v6 step files). The instructions: any heading with
 * "Instructions" (`## Sequence of Instructions`), or the numbered sequence the v6 steps name after
 * what they do (`## INITIALIZATION SEQUENCE:`, `## PROJECT DISCOVERY SEQUENCE:`).
 */
function bmadTitleMatches(title: string, name: string): boolean {
  const plain = title.replace(/[:：]\s*$/u, '').trim();
  if (name === 'Goal') return /^((step\s+)?goal|your\s+task)$/iu.test(plain);
  if (name === 'Instructions') return /instructions|\bsequence$/iu.test(plain);
  return titleMatches(plain, name);
}

/** An imported inline step, `<step n="1" goal="…">` … `</step>`: the tag's attributes and what it holds. */
const INLINE_STEP = /^\s*<step\b([^>]*)>([\s\S]*)<\/step>\s*$/u;

/**
 * Sections an imported inline step has in its own form: a `goal` attribute is its goal, and the
 * text the `<step>` holds is its instructions (real BMAD inline steps have no headings at all).
 */
function inlineSections(body: string): Set<string> {
  const m = INLINE_STEP.exec(body);
  if (!m) return new Set();
  const found = new Set<string>();
  if (/\bgoal\s*=\s*("[^"]*\S[^"]*"|'[^']*\S[^']*')/u.test(m[1]!)) found.add('Goal');
  if (m[2]!.trim()) found.add('Instructions');
  return found;
}

/**
 * @param bodyStartLine 1-based line of the file on which `body` starts, so messages cite file lines.
 */
export function checkStepBody(body: string, filePath: string, bodyStartLine = 1, options: StepBodyOptions = {}): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const sections = markdownSections(body);
  const fileLine = (line: number) => line + bodyStartLine - 1;
  const inline = options.bmadMethod ? inlineSections(body) : new Set<string>();
  for (const spec of SECTIONS) {
    if (inline.has(spec.name)) continue;
    const named = sections.filter((s) => (options.bmadMethod ? bmadTitleMatches(s.title, spec.name) : titleMatches(s.title, spec.name)));
    const matches = named.filter((s) => s.level === 2);
    if (matches.length === 0) {
      if (!spec.required) continue;
      const wrongLevel = named[0];
      issues.push(
        (options.bmadMethod ? warningIssue : errorIssue)(spec.code, filePath, `The step has no "## ${spec.name}" section.`, {
          hint: wrongLevel
            ? `Line ${fileLine(wrongLevel.line)} has "${'#'.repeat(wrongLevel.level)} ${wrongLevel.title}"; make it a level-2 heading: "## ${spec.name}".`
            : `Add a "## ${spec.name}" heading${options.bmadMethod && spec.bmad ? ` (or BMAD's "${spec.bmad}")` : ''} and write under it ${spec.write}.`,
        }),
      );
      continue;
    }
    for (const duplicate of matches.slice(1)) {
      issues.push(
        warningIssue('STEP_DUPLICATE_SECTION', filePath, `"## ${spec.name}" appears again on line ${fileLine(duplicate.line)}.`, {
          hint: 'Merge the two sections into one.',
        }),
      );
    }
    for (const section of matches) {
      if (isBlankContent(section.content)) {
        issues.push(
          warningIssue('STEP_EMPTY_SECTION', filePath, `The "## ${section.title}" section (line ${fileLine(section.line)}) is empty.`, {
            hint: `Under the heading, write ${spec.write}; or remove the heading.`,
          }),
        );
      }
    }
  }
  return issues;
}
