/**
 * The "context summary" of a turn: what was sent to the model, in a form the Workbench can
 * show: each prompt layer's size, where the persona came from, one line per envelope key saying
 * what it held (never the contents), the budget and what was trimmed, the history window, the
 * tools and whether the turn was suggest-only.
 */
import type { BudgetSummary, ContextSummary, PersonaSummary, PromptLayer } from '../../../shared/ai/turn.ts';
import type { ContextEnvelope } from '../tools/context-envelope.ts';
import { isJsonObject } from '../overlay/package-lookups.ts';
import type { JsonObject } from '../overlay/package-lookups.ts';

export interface ContextSummaryInput {
  layers: readonly PromptLayer[];
  persona: PersonaSummary;
  /** The envelope as sent (trimmed). */
  envelope: ContextEnvelope;
  budget: BudgetSummary;
  history: { rawMessages: number; summarizedMessages: number };
  tools: readonly string[];
  suggestOnly: boolean;
}

const ENVELOPE_KEYS = [
  'session_meta',
  'domain_profile',
  'normative_baseline',
  'target_snapshot',
  'dependency_digest',
  'tool_capabilities',
  'revision_info',
] as const satisfies ReadonlyArray<keyof ContextEnvelope>;

const formatInt = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/gu, ',');
const plural = (n: number, one: string, many = `${one}s`): string => `${formatInt(n)} ${n === 1 ? one : many}`;
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const isTrimmed = (value: unknown): boolean => isJsonObject(value) && typeof value.trimmed === 'string';

function sessionLine(meta: JsonObject): string {
  const target = `${str(meta.targetType) ?? 'target'} ${str(meta.targetId) ?? '(new)'}`;
  const workflow = str(meta.workflowId) && meta.targetType !== 'workflow' ? ` in workflow ${str(meta.workflowId)}` : '';
  return `${target}${workflow}, ${str(meta.mode) ?? 'unknown'} mode`;
}

function profileLine(profile: Record<string, unknown>): string {
  const keys = Object.keys(profile);
  const set = keys.filter((k) => (typeof profile[k] === 'string' ? profile[k] !== '' : profile[k] !== undefined && profile[k] !== null));
  if (set.length === 0) return 'not set';
  const reduced = keys.filter((k) => isTrimmed(profile[k])).length;
  return `${set.length} of ${keys.length} fields set (${set.join(', ')})${reduced ? `, ${reduced} reduced to a summary` : ''}`;
}

function baselineLine(baseline: JsonObject): string {
  const rules = list(baseline.rules);
  const version = str(baseline.schemaVersion);
  return `${version ? `.bmad ${version}, ` : ''}${plural(rules.length, 'rule')}`;
}

function windowNote(snapshot: JsonObject): string {
  return snapshot.truncated === true ? ` (window of ${formatInt(Number(snapshot.totalChars) || 0)})` : '';
}

function targetLine(snapshot: JsonObject, meta: JsonObject): string {
  const type = str(meta.targetType) ?? 'target';
  const id = str(meta.targetId) ?? '(new)';
  if (snapshot.exists !== true) return `${type} ${id} does not exist yet`;
  switch (type) {
    case 'workflow': {
      const graph = isJsonObject(snapshot.graph) ? snapshot.graph : undefined;
      const graphPart = graph ? `graph with ${plural(list(graph.nodes).length, 'node')} and ${plural(list(graph.edges).length, 'edge')}` : 'no readable graph';
      return `workflow ${id}: frontmatter summary, ${graphPart}`;
    }
    case 'step': {
      const chars = str(snapshot.markdown)?.length ?? 0;
      return `step ${id}: ${formatInt(chars)} chars of markdown${windowNote(snapshot)}${isJsonObject(snapshot.frontmatter) ? ', frontmatter' : ''}`;
    }
    case 'agent':
      return `agent ${id}: full definition (${formatInt(JSON.stringify(snapshot.agent ?? null).length)} chars of JSON)`;
    case 'asset':
      return `asset ${id}: ${formatInt(str(snapshot.content)?.length ?? 0)} chars of text${windowNote(snapshot)}`;
    default:
      return `${type} ${id}`;
  }
}

const DIGEST_LABELS: Readonly<Record<string, [string, string]>> = {
  nodes: ['node', 'nodes'],
  agents: ['agent', 'agents'],
  agentIds: ['agent id', 'agent ids'],
  inEdges: ['incoming edge', 'incoming edges'],
  outEdges: ['outgoing edge', 'outgoing edges'],
  variableKeys: ['variable key', 'variable keys'],
  assetPaths: ['asset path', 'asset paths'],
  referencedBy: ['reference', 'references'],
};

function digestPart(key: string, value: unknown): string | undefined {
  const [one, many] = DIGEST_LABELS[key] ?? [key, key];
  if (Array.isArray(value)) return `${formatInt(value.length)} ${value.length === 1 ? one : many}`;
  if (isJsonObject(value) && typeof value.trimmed === 'string') {
    const count = typeof value.count === 'number' ? `${formatInt(value.count)} ${value.count === 1 ? one : many}` : key;
    return `${count} (${value.trimmed})`;
  }
  if (key === 'node') return value === null ? 'no graph node' : 'graph node';
  if (key === 'constraints') return 'asset constraints';
  return value === null || value === undefined ? undefined : key;
}

function digestLine(digest: JsonObject): string {
  const parts = Object.entries(digest).flatMap(([k, v]) => digestPart(k, v) ?? []);
  return parts.length > 0 ? parts.join(', ') : 'empty';
}

function toolsLine(caps: JsonObject): string {
  return `${plural(list(caps.tools).length, 'tool')}, apply: ${caps.apply === true ? 'yes' : 'no'}${caps.suggestOnly === true ? ', suggest-only' : ''}`;
}

function revisionLine(info: JsonObject): string {
  const baseline = isJsonObject(info.baseline) ? info.baseline : {};
  const parts: string[] = [];
  if (isJsonObject(baseline.workflow)) parts.push(`workflow ${String(baseline.workflow.revision ?? '?')}`);
  if (baseline.agents !== undefined) parts.push(`agents ${String(baseline.agents)}`);
  if (baseline.assets !== undefined) parts.push(`assets ${String(baseline.assets)}`);
  const staged = list(info.stagedKeys).length;
  return `${parts.length ? `baseline revisions ${parts.join(', ')}; ` : ''}${plural(staged, 'staged object')}`;
}

/** One line per envelope key: what it held, never the contents. */
export function describeEnvelope(envelope: ContextEnvelope): Record<string, string> {
  const lines: Record<(typeof ENVELOPE_KEYS)[number], string> = {
    session_meta: sessionLine(envelope.session_meta),
    domain_profile: profileLine(envelope.domain_profile as Record<string, unknown>),
    normative_baseline: baselineLine(envelope.normative_baseline),
    target_snapshot: targetLine(envelope.target_snapshot, envelope.session_meta),
    dependency_digest: digestLine(envelope.dependency_digest),
    tool_capabilities: toolsLine(envelope.tool_capabilities),
    revision_info: revisionLine(envelope.revision_info),
  };
  return Object.fromEntries(ENVELOPE_KEYS.map((k) => [k, lines[k]]));
}

export function contextSummary(input: ContextSummaryInput): ContextSummary {
  return {
    layers: input.layers.map(({ id, title, text }) => ({ id, title, chars: text.length })),
    persona: input.persona,
    envelope: describeEnvelope(input.envelope),
    budget: input.budget,
    history: { rawMessages: input.history.rawMessages, summarizedMessages: input.history.summarizedMessages },
    tools: [...input.tools],
    suggestOnly: input.suggestOnly,
  };
}
