/**
 * The context envelope `builder.context.get` answers with: the session, the
 * domain profile, the rules for the target type, a snapshot of the target, what it depends on, the
 * tools and the revisions, all read from the session's effective view. Used by read-tools.ts.
 */
import { MODEL_TOOL_NAMES } from '../../../shared/ai/tool-names.ts';
import {
  ASSET_EXTENSIONS,
  MAX_ASSET_BYTES,
  MAX_ASSET_COUNT,
  MAX_ASSETS_TOTAL_BYTES,
  checkAssetPath,
  utf8ByteLength,
} from '../../../shared/bmad/index.ts';
import type { BmadPackage } from '../../../shared/bmad/index.ts';
import type { SessionMeta, TargetType } from '../../../shared/ai/session.ts';
import type { DomainProfile } from '../../../shared/api/projects.ts';
import { formatObjectKey } from '../../../shared/object-keys.ts';
import { revisionOf, scopeOf } from '../overlay/effective-view.ts';
import type { EffectiveView } from '../overlay/effective-view.ts';
import {
  agentIds,
  agentsOf,
  assetPaths,
  findAgent,
  findWorkflow,
  isJsonObject,
  newStepPath,
  readGraph,
  stepsOf,
  workflowIds,
} from '../overlay/package-lookups.ts';
import type { GraphInfo, JsonObject, StepInfo } from '../overlay/package-lookups.ts';
import type { ReadToolContext } from './read-context.ts';
import { agentIdsOfStep, assetPathsOfStep, refCoversAsset, refsOfAgent, refsOfAsset } from './refs.ts';
import { windowText } from './window.ts';
import type { TextWindow } from './window.ts';
import { frontmatterDataOf, parseFrontmatterOnce } from './frontmatter-memo.ts';

/** The window metadata a read result carries next to the windowed text. */
export function windowFields(window: TextWindow) {
  return {
    totalChars: window.totalChars,
    offset: window.offset,
    truncated: window.truncated,
    ...(window.nextOffset === undefined ? {} : { nextOffset: window.nextOffset }),
  };
}

/** The normative rules the model works under, per target (the .bmad rules of shared/bmad, in words). */
const RULES: Record<'common' | TargetType, string[]> = {
  common: [
    'Packages follow .bmad v1.1: schemaVersion "1.1" in bmad.json, agents.json, workflow.md, workflow.graph.json and every step frontmatter.',
    'Ids of workflows, nodes and agents: a letter or digit, then letters, digits, ".", "_", ":" or "-".',
    'Read with the builder.* read tools; stage changes with builder.change.stage and check them with builder.change.validate. Only a person applies changes.',
  ],
  workflow: [
    'workflow.md: YAML frontmatter (schemaVersion, workflowType, currentNodeId, stepsCompleted, optional variables, decisionLog, artifacts), then a "## Steps Index" linking every step.',
    'workflow.graph.json: {schemaVersion, entryNodeId, nodes: [{id, type, file, title?, agentId?}], edges: [{from, to, label, isDefault?, conditionText?}]}; node.file is a path from the package root (workflows/<workflowId>/steps/<name>.md).',
    'Graph rules: the entry node exists and is the only node without incoming edges; every edge end is a node; a decision has at least two outgoing edges; several outgoing edges need exactly one default; cycles must pass a decision that can leave them; ids are unique.',
  ],
  step: [
    'A step file starts with YAML frontmatter: schemaVersion, nodeId (= its graph node id), type (step|decision|merge|end|subworkflow); optional title, agentId, inputs, outputs, setsVariables, transitions.',
    'The body needs "## Goal" and "## Instructions" sections; "## Completion" is optional.',
    'Transitions match the graph edges leaving the node; agentId names an agent of agents.json; every assets/... path the step mentions exists.',
  ],
  agent: [
    'agents.json: {schemaVersion, agents: [...]} with at least one agent; each has id, metadata {name, title, icon} and persona {role, identity, communication_style, principles}.',
    'Nodes and steps refer to agents by id; removing an agent breaks the steps that use it.',
  ],
  asset: [
    `Asset paths start with assets/, use only A-Z a-z 0-9 . _ - /, have no empty, "." or ".." folder, and end in ${ASSET_EXTENSIONS.join(' ')}.`,
    `An asset is at most ${MAX_ASSET_BYTES} bytes; a project has at most ${MAX_ASSET_COUNT} assets and ${MAX_ASSETS_TOTAL_BYTES} bytes of them.`,
    'Steps mention assets as @pkg/assets/<path> or assets/<path>.',
  ],
};

export interface ContextEnvelope {
  session_meta: JsonObject;
  domain_profile: DomainProfile | Record<string, unknown>;
  normative_baseline: JsonObject;
  target_snapshot: JsonObject;
  dependency_digest: JsonObject;
  tool_capabilities: JsonObject;
  revision_info: JsonObject;
}

interface TargetContext {
  snapshot: JsonObject;
  digest: JsonObject;
}

const variableKeysOf = (frontmatter: JsonObject | null): string[] =>
  isJsonObject(frontmatter?.variables) ? Object.keys(frontmatter.variables) : [];

function agentIndex(pkg: BmadPackage, only?: ReadonlySet<string>) {
  return agentsOf(pkg)
    .filter((a) => typeof a.id === 'string' && (only === undefined || only.has(a.id)))
    .map((a) => {
      const metadata = isJsonObject(a.metadata) ? a.metadata : {};
      return { id: a.id as string, name: metadata.name, title: metadata.title };
    });
}

function workflowFrontmatterSummary(workflowMd: string | null): JsonObject | null {
  if (workflowMd === null) return null;
  const parsed = parseFrontmatterOnce(workflowMd);
  if (!parsed.ok) return { problem: parsed.problems[0]?.message ?? 'The frontmatter does not parse.' };
  const data = parsed.value.data;
  const title = /^#[ \t]+(.+)$/mu.exec(parsed.value.body)?.[1]?.trim();
  return {
    keys: Object.keys(data),
    schemaVersion: data.schemaVersion,
    workflowType: data.workflowType,
    variableKeys: variableKeysOf(data),
    ...(title ? { title } : {}),
  };
}

function graphSummary(graph: GraphInfo | null): JsonObject | null {
  if (!graph) return null;
  return {
    entryNodeId: graph.entryNodeId,
    nodes: graph.nodes.map(({ id, type, title, agentId }) => ({ id, type, title, agentId })),
    edges: graph.edges,
  };
}

function nodeIndexItem(step: StepInfo) {
  return {
    nodeId: step.nodeId,
    type: step.node?.type,
    title: step.node?.title,
    agentId: step.node?.agentId,
    path: step.file?.path ?? step.node?.file,
    hasFile: step.file !== undefined,
  };
}

function workflowTarget(pkg: BmadPackage, workflowId: string | null): TargetContext {
  const workflow = workflowId === null ? undefined : findWorkflow(pkg, workflowId);
  if (!workflow) {
    return {
      snapshot: {
        exists: false,
        workflowId,
        ...(workflowId ? { suggestedPaths: { workflowMd: `workflows/${workflowId}/workflow.md`, graph: `workflows/${workflowId}/workflow.graph.json` } } : {}),
        existingWorkflowIds: workflowIds(pkg),
      },
      digest: { agents: agentIndex(pkg) },
    };
  }
  const graph = readGraph(workflow.graphJson);
  const steps = stepsOf(workflow, graph);
  return {
    snapshot: {
      exists: true,
      workflowId: workflow.id,
      displayName: workflow.displayName,
      paths: { workflowMd: workflow.workflowMdPath, graph: workflow.graphPath },
      frontmatter: workflowFrontmatterSummary(workflow.workflowMd),
      graph: graphSummary(graph),
    },
    digest: { nodes: steps.map(nodeIndexItem), agents: agentIndex(pkg, new Set(steps.flatMap(agentIdsOfStep))) },
  };
}

function stepTarget(pkg: BmadPackage, workflowId: string | null, nodeId: string | null): TargetContext {
  const workflow = workflowId === null ? undefined : findWorkflow(pkg, workflowId);
  if (!workflow) {
    const problem = workflowId === null ? 'The session names no workflow.' : `There is no workflow "${workflowId}".`;
    return { snapshot: { exists: false, workflowId, nodeId, problem, existingWorkflowIds: workflowIds(pkg) }, digest: {} };
  }
  const graph = readGraph(workflow.graphJson);
  const variableKeys = variableKeysOf(frontmatterDataOf(workflow.workflowMd));
  const steps = stepsOf(workflow, graph);
  const step = nodeId === null ? undefined : steps.find((s) => s.nodeId === nodeId);
  const edges = {
    inEdges: (graph?.edges ?? []).filter((e) => e.to === nodeId).map(({ from, label }) => ({ from, label })),
    outEdges: (graph?.edges ?? []).filter((e) => e.from === nodeId).map(({ to, label, isDefault, conditionText }) => ({ to, label, isDefault, conditionText })),
  };
  if (!step?.file) {
    const suggestedPath = step?.node?.file ?? (nodeId === null ? undefined : newStepPath(pkg, workflow.id, nodeId));
    return {
      snapshot: { exists: false, workflowId: workflow.id, nodeId, suggestedPath, existingNodeIds: steps.map((s) => s.nodeId) },
      digest: { node: step?.node ?? null, ...edges, variableKeys, agents: agentIndex(pkg) },
    };
  }
  const window = windowText(step.file.markdown);
  const assets = assetPaths(pkg);
  return {
    snapshot: {
      exists: true,
      workflowId: workflow.id,
      nodeId: step.nodeId,
      path: step.file.path,
      markdown: window.content,
      ...windowFields(window),
      frontmatter: frontmatterDataOf(step.file.markdown),
    },
    digest: {
      node: step.node ?? null,
      ...edges,
      variableKeys,
      // Paths only: the model reads an asset's content with builder.asset.read, so the envelope stays small.
      assetPaths: assetPathsOfStep(step.file.markdown).map((path) => ({ path, exists: assets.some((a) => refCoversAsset(path, a)) })),
      agents: agentIdsOfStep(step).map((id) => ({ id, exists: findAgent(pkg, id) !== undefined })),
    },
  };
}

function agentTarget(pkg: BmadPackage, agentId: string | null): TargetContext {
  const agent = agentId === null ? undefined : findAgent(pkg, agentId);
  return {
    snapshot: agent ? { exists: true, agentId, agent } : { exists: false, agentId, existingAgentIds: agentIds(pkg) },
    digest: { agentIds: agentIds(pkg), referencedBy: agentId === null ? [] : refsOfAgent(pkg, agentId).inbound },
  };
}

function assetConstraints(pkg: BmadPackage): JsonObject {
  return {
    pathRule: RULES.asset[0],
    allowedExtensions: [...ASSET_EXTENSIONS],
    textOnly: true,
    maxBytesPerAsset: MAX_ASSET_BYTES,
    maxAssetCount: MAX_ASSET_COUNT,
    maxTotalBytes: MAX_ASSETS_TOTAL_BYTES,
    current: { count: pkg.assets.length, totalBytes: pkg.assets.reduce((sum, a) => sum + utf8ByteLength(a.content), 0) },
  };
}

function assetTarget(pkg: BmadPackage, path: string | null): TargetContext {
  const asset = path === null ? undefined : pkg.assets.find((a) => a.path === path);
  const digest = { referencedBy: path === null ? [] : refsOfAsset(pkg, path).inbound, constraints: assetConstraints(pkg) };
  if (!asset) {
    const check = path === null ? undefined : checkAssetPath(path);
    return {
      snapshot: {
        exists: false,
        path,
        ...(check && !check.ok ? { pathProblem: `${check.message} ${check.hint}` } : {}),
        existingAssetPaths: assetPaths(pkg),
      },
      digest,
    };
  }
  const window = windowText(asset.content);
  return { snapshot: { exists: true, path: asset.path, content: window.content, ...windowFields(window) }, digest };
}

/** The object key of the session's target, when it names one. */
export function targetKey(session: SessionMeta): string | undefined {
  const { targetId, workflowId } = session;
  switch (session.targetType) {
    case 'workflow': {
      const id = targetId ?? workflowId;
      return id === null ? undefined : formatObjectKey({ kind: 'workflow', workflowId: id });
    }
    case 'step':
      return workflowId === null || targetId === null ? undefined : formatObjectKey({ kind: 'step', workflowId, nodeId: targetId });
    case 'agent':
      return targetId === null ? undefined : formatObjectKey({ kind: 'agent', agentId: targetId });
    case 'asset':
      return targetId === null ? undefined : formatObjectKey({ kind: 'asset', path: targetId });
    default: {
      const never: never = session.targetType;
      throw new Error(`unknown target type ${String(never)}`);
    }
  }
}

function targetContext(pkg: BmadPackage, session: SessionMeta): TargetContext {
  switch (session.targetType) {
    case 'workflow':
      return workflowTarget(pkg, session.targetId ?? session.workflowId);
    case 'step':
      return stepTarget(pkg, session.workflowId, session.targetId);
    case 'agent':
      return agentTarget(pkg, session.targetId);
    case 'asset':
      return assetTarget(pkg, session.targetId);
    default: {
      const never: never = session.targetType;
      throw new Error(`unknown target type ${String(never)}`);
    }
  }
}

function revisionInfo(view: EffectiveView, session: SessionMeta, key: string | undefined): JsonObject {
  const { revisions } = view.baseline;
  const scope = key === undefined ? undefined : scopeOf(key);
  const baseline: JsonObject = {};
  if (scope?.kind === 'workflow') {
    const workflowKey = formatObjectKey({ kind: 'workflow', workflowId: scope.workflowId });
    baseline.workflow = { workflowId: scope.workflowId, revision: revisionOf(view.baseline, workflowKey) };
  }
  if (session.targetType !== 'asset') baseline.agents = revisions.agents;
  if (session.targetType !== 'agent') baseline.assets = revisions.assets;
  return { baseline, stagedKeys: [...view.entries.keys()] };
}

/** The initial context envelope, filled for the session's target. */
export function buildContextEnvelope(ctx: ReadToolContext): ContextEnvelope {
  const { view, session } = ctx;
  const { snapshot, digest } = targetContext(view.pkg, session);
  const { sessionId, projectId, workflowId, targetType, targetId, mode } = session;
  return {
    session_meta: { sessionId, projectId, workflowId, targetType, targetId, mode },
    domain_profile: ctx.domainProfile,
    normative_baseline: { schemaVersion: '1.1', rules: [...RULES.common, ...RULES[targetType]] },
    target_snapshot: snapshot,
    dependency_digest: digest,
    tool_capabilities: { tools: [...MODEL_TOOL_NAMES], apply: false },
    revision_info: revisionInfo(view, session, targetKey(session)),
  };
}
