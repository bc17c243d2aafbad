/**
 * Lenient lookups in a package, shared by the effective view, the read tools, the context envelope
 * and the reference finder: the graph's nodes and edges, a workflow, a step by node id, an agent
 * by id. They never throw on a broken file: validation reports those.
 */
import { parseFrontmatter, DEFAULT_AGENTS_PATH, newStepFilePath } from '../../../shared/bmad/index.ts';
import type { BmadPackage, BmadStepFile, BmadWorkflow } from '../../../shared/bmad/index.ts';

export type JsonObject = Record<string, unknown>;

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON.parse that answers undefined instead of throwing (a leading BOM is ignored). */
export function parseJsonLoose(text: string | null | undefined): unknown {
  if (text === null || text === undefined) return undefined;
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown;
  } catch {
    return undefined;
  }
}

/** The frontmatter data of a Markdown file, or null when it has none that parses. */
export function frontmatterOf(markdown: string | null): JsonObject | null {
  if (markdown === null) return null;
  const parsed = parseFrontmatter(markdown);
  return parsed.ok ? parsed.value.data : null;
}

// ---- the graph, read leniently ----------------------------------------------------------------

export interface GraphNodeInfo {
  id: string;
  type?: string;
  file?: string;
  title?: string;
  agentId?: string;
}

export interface GraphEdgeInfo {
  from: string;
  to: string;
  label?: string;
  isDefault?: boolean;
  conditionText?: string;
}

export interface GraphInfo {
  entryNodeId?: string;
  nodes: GraphNodeInfo[];
  edges: GraphEdgeInfo[];
}

function stringFields<K extends string>(source: JsonObject, keys: readonly K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const key of keys) {
    const value = source[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}

/** Nodes and edges of a graph file whose JSON parses, keeping the well-formed items; null otherwise. */
export function readGraph(graphJson: string | null): GraphInfo | null {
  const value = parseJsonLoose(graphJson);
  if (!isJsonObject(value)) return null;
  const items = (list: unknown) => (Array.isArray(list) ? list.filter(isJsonObject) : []);
  const nodes = items(value.nodes)
    .filter((n) => typeof n.id === 'string')
    .map((n): GraphNodeInfo => ({ id: n.id as string, ...stringFields(n, ['type', 'file', 'title', 'agentId'] as const) }));
  const edges = items(value.edges)
    .filter((e) => typeof e.from === 'string' && typeof e.to === 'string')
    .map(
      (e): GraphEdgeInfo => ({
        from: e.from as string,
        to: e.to as string,
        ...stringFields(e, ['label', 'conditionText'] as const),
        ...(typeof e.isDefault === 'boolean' ? { isDefault: e.isDefault } : {}),
      }),
    );
  return { ...(typeof value.entryNodeId === 'string' ? { entryNodeId: value.entryNodeId } : {}), nodes, edges };
}

// ---- lookups ------------------------------------------------------------------------------------

export function findWorkflow(pkg: BmadPackage, workflowId: string): BmadWorkflow | undefined {
  return pkg.workflows.find((w) => w.id === workflowId);
}

/** The node id a step file belongs to: its own, else the first graph node that uses its path. */
export function stepNodeId(step: BmadStepFile, graph: GraphInfo | null): string | undefined {
  return step.nodeId ?? graph?.nodes.find((n) => n.file === step.path)?.id;
}

export function findStep(workflow: BmadWorkflow, nodeId: string, graph = readGraph(workflow.graphJson)): BmadStepFile | undefined {
  return (
    workflow.steps.find((s) => s.nodeId === nodeId) ??
    workflow.steps.find((s) => s.nodeId === undefined && stepNodeId(s, graph) === nodeId)
  );
}

/** One step of a workflow: a graph node, its file, or both. */
export interface StepInfo {
  nodeId: string;
  node?: GraphNodeInfo;
  file?: BmadStepFile;
}

/** The graph's nodes in order (with their files), then the step files no node uses. */
export function stepsOf(workflow: BmadWorkflow, graph = readGraph(workflow.graphJson)): StepInfo[] {
  const out: StepInfo[] = [];
  const seen = new Set<string>();
  const used = new Set<BmadStepFile>();
  for (const node of graph?.nodes ?? []) {
    if (seen.has(node.id)) continue;
    seen.add(node.id);
    const file = findStep(workflow, node.id, graph);
    if (file) used.add(file);
    out.push({ nodeId: node.id, node, ...(file ? { file } : {}) });
  }
  for (const file of workflow.steps) {
    const nodeId = used.has(file) ? undefined : stepNodeId(file, graph);
    if (nodeId === undefined || seen.has(nodeId)) continue;
    seen.add(nodeId);
    out.push({ nodeId, file });
  }
  return out;
}

/** agents.json read leniently, as the package store does: a broken file reads as an empty list. */
export function readAgentsDocument(text: string | null): JsonObject & { agents: unknown[] } {
  const value = parseJsonLoose(text);
  if (isJsonObject(value)) return { ...value, agents: Array.isArray(value.agents) ? value.agents : [] };
  return { schemaVersion: '1.1', agents: [] };
}

export const agentIdOf = (agent: unknown): string | undefined =>
  isJsonObject(agent) && typeof agent.id === 'string' ? agent.id : undefined;

/** The agent objects of the package's agents.json (entries that are not objects are skipped). */
export function agentsOf(pkg: BmadPackage): JsonObject[] {
  if (pkg.agentsJson === null) return [];
  return readAgentsDocument(pkg.agentsJson).agents.filter(isJsonObject);
}

export function findAgent(pkg: BmadPackage, agentId: string): JsonObject | undefined {
  return agentsOf(pkg).find((a) => a.id === agentId);
}

export const agentsPathOf = (pkg: BmadPackage): string => pkg.agentsPath ?? DEFAULT_AGENTS_PATH;

/**
 * The file a new step gets when its graph node names none: `workflows/<workflow>/steps/<id>.md` with
 * a name every system can unpack (`review:final` → `review_final.md`; the id stays), numbered past
 * every step file of the package (paths are unique in a project).
 */
export function newStepPath(pkg: BmadPackage, workflowId: string, nodeId: string): string {
  const taken = new Set(pkg.workflows.flatMap((w) => w.steps.map((s) => s.path)));
  return newStepFilePath(`workflows/${workflowId}/steps`, nodeId, (path) => taken.has(path));
}

// ---- what exists, for not-found hints and the context envelope --------------------------------

export const workflowIds = (pkg: BmadPackage): string[] => pkg.workflows.map((w) => w.id);
export const agentIds = (pkg: BmadPackage): string[] => agentsOf(pkg).flatMap((a) => (typeof a.id === 'string' ? [a.id] : []));
export const assetPaths = (pkg: BmadPackage): string[] => pkg.assets.map((a) => a.path);
