/**
 * The `## Steps Index` of workflow.md: a readable list of links to the step files,
 * not the source of truth (the workflow's graph is). Links resolve against workflow.md's folder.
 */
import { markdownSections, titleMatches } from './markdown-sections.ts';
import { dirOf, resolveLink } from './paths.ts';

export interface StepsIndexLink {
  text: string;
  target: string;
  /** The package path the link resolves to; null for external links and anchors. */
  resolved: string | null;
  /** 1-based line in workflow.md. */
  line: number;
}

const LINK = /\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/gu;

export function stepsIndexLinks(body: string, workflowMdPath: string, bodyStartLine = 1): StepsIndexLink[] {
  const section = markdownSections(body).find((s) => s.level === 2 && titleMatches(s.title, 'Steps Index'));
  if (!section) return [];
  const dir = dirOf(workflowMdPath);
  const links: StepsIndexLink[] = [];
  section.content.split('\n').forEach((text, i) => {
    for (const m of text.matchAll(LINK)) {
      const target = m[2] ?? '';
      links.push({
        text: m[1] ?? '',
        target,
        resolved: resolveLink(dir, target),
        line: bodyStartLine + section.line + i,
      });
    }
  });
  return links;
}
