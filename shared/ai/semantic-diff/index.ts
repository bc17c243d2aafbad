/**
 * The semantic diff of one changed file, picked by its object key: a graph as nodes and edges,
 * an agent field by field, a step file or workflow.md as a frontmatter table and sections. Assets
 * (and anything else) have none: null, and the UI shows the text diff alone.
 */
import { parseObjectKey } from '../../object-keys.ts';
import { diffAgents } from './agents.ts';
import { diffGraph } from './graph.ts';
import { diffMarkdown } from './markdown.ts';
import type { SemanticDiff } from './types.ts';

export type * from './types.ts';
export { diffAgents } from './agents.ts';
export { diffGraph, diffGraphShapes, readGraph, edgeKeys, type GraphShape } from './graph.ts';
export { diffFrontmatter, diffMarkdown, diffSections } from './markdown.ts';
export { diffValues, sameValue, showValue } from './values.ts';

export type SemanticKind = 'graph' | 'agents' | 'markdown';

/** Which semantic view a key has, if any. */
export function semanticKindOf(key: string): SemanticKind | null {
  const parsed = parseObjectKey(key);
  if (!parsed) return null;
  if (parsed.kind === 'graph') return 'graph';
  if (parsed.kind === 'agent') return 'agents';
  if (parsed.kind === 'step' || parsed.kind === 'workflow') return 'markdown';
  return null;
}

export function semanticDiff(key: string, before: string | null, after: string | null): SemanticDiff | null {
  switch (semanticKindOf(key)) {
    case 'graph':
      return diffGraph(before, after);
    case 'agents':
      return diffAgents(before, after);
    case 'markdown':
      return diffMarkdown(before, after);
    default:
      return null;
  }
}
