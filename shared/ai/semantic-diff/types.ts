/** The result shapes of the semantic diffs (graph, agents, frontmatter, sections) the diff view renders. */

export type PartStatus = 'added' | 'removed' | 'changed' | 'unchanged';

/** One field that differs: `path` names nested values (`persona.role`, `menu[1].trigger`). */
export interface FieldChange {
  path: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

/** A side that does not parse: the UI shows the text diff with this error instead of a picture. */
export interface Unparsable {
  kind: 'unparsable';
  side: 'before' | 'after';
  error: string;
}

export interface GraphNodeDiff {
  id: string;
  status: PartStatus;
  /** The node as it is after the change (before it, for a removed node). */
  node: Record<string, unknown>;
  fields: FieldChange[];
}

export interface GraphEdgeDiff {
  /** Stable within one diff: the edge's id, else `from->to` (with `#n` for a repeated pair). */
  key: string;
  from: string;
  to: string;
  status: PartStatus;
  edge: Record<string, unknown>;
  fields: FieldChange[];
}

export interface GraphDiffResult {
  kind: 'graph';
  /** Every node of either side (the union the picture shows), unchanged ones included. */
  nodes: GraphNodeDiff[];
  edges: GraphEdgeDiff[];
  /** Graph-level fields (entry node, schema version, metadata other than its layout). */
  fields: FieldChange[];
  /** Stored canvas positions by node id, the new side first (an earlier BMAD-METHOD import's own left out): layout only, never a change. */
  positions: Record<string, { x: number; y: number }>;
  changed: boolean;
}

export interface AgentDiff {
  id: string;
  status: Exclude<PartStatus, 'unchanged'>;
  fields: FieldChange[];
}

export interface AgentsDiffResult {
  kind: 'agents';
  agents: AgentDiff[];
  changed: boolean;
}

export interface SectionDiff {
  /** Heading path, e.g. `Classify the issue › Goal`; `(top)` for text before the first heading. */
  title: string;
  level: number;
  status: Exclude<PartStatus, 'unchanged'>;
  before: string | null;
  after: string | null;
}

/** A Markdown file with frontmatter (step files, workflow.md): the field table and the sections. */
export interface MarkdownDiffResult {
  kind: 'markdown';
  frontmatter: FieldChange[];
  sections: SectionDiff[];
  changed: boolean;
}

export type SemanticDiff = GraphDiffResult | AgentsDiffResult | MarkdownDiffResult | Unparsable;
