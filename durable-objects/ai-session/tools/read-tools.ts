/**
 * The read-only `builder.*` tools the model may call (seed 000 §6.1, seed 001 §7–§8.1, seed 002
 * §3.3–§3.4): plain functions over the session's effective view (overlay first), each with the zod
 * schema of its arguments, from which the JSON Schema sent to the model is generated. Every result
 * is the uniform tool envelope. Nothing here writes, and nothing reads outside the session's project.
 */
import { MODEL_TOOL_NAMES } from '../../../shared/ai/tool-names.ts';
import { z } from 'zod';
import {
  ASSET_EXTENSIONS,
  MAX_ASSET_BYTES,
  MAX_ASSET_COUNT,
  MAX_ASSETS_TOTAL_BYTES,
  checkAssetPath,
  parseFrontmatter,
  utf8ByteLength,
} from '../../../shared/bmad/index.ts';
import type { BmadPackage, BmadWorkflow } from '../../../shared/bmad/index.ts';
import { toolError, toolOk } from '../../../shared/ai/tool-envelope.ts';
import type { ToolEnvelope, ToolMeta } from '../../../shared/ai/tool-envelope.ts';
import type { SessionMeta, TargetType } from '../../../shared/ai/session.ts';
import type { DomainProfile } from '../../../shared/api/projects.ts';
import { formatObjectKey } from '../../../shared/object-keys.ts';
import {
  agentsOf,
  findAgent,
  findStep,
  findWorkflow,
  frontmatterOf,
  isJsonObject,
  parseJsonLoose,
  readGraph,
  revisionOf,
  scopeOf,
  stepsOf,
} from '../effective-view.ts';
import type { EffectiveView, GraphInfo, JsonObject, StepInfo } from '../effective-view.ts';
import { agentIdsOfStep, assetPathsOfStep, refCoversAsset, refsOfAgent, refsOfAsset, refsOfStep, refsOfWorkflow } from './refs.ts';
import type { Refs } from './refs.ts';
import { DEFAULT_WINDOW_CHARS, MAX_WINDOW_CHARS, readMoreHint, windowText } from './window.ts';
import type { TextWindow } from './window.ts';

export interface ReadToolContext {
  view: EffectiveView;
  session: SessionMeta;
  domainProfile: DomainProfile | Record<string, unknown>;
}

export interface ToolDefinition<S extends z.ZodType> {
  name: string;
  description: string;
  args: S;
  run(ctx: ReadToolContext, args: z.infer<S>): ToolEnvelope;
}

/** Not-found hints name at most this many existing ids. */
const MAX_LISTED = 20;

// ---- shared pieces --------------------------------------------------------------------------------

const ProjectIdArg = z
  .union([z.string(), z.number()])
  .optional()
  .describe('Optional. Tools only read the project of this session; leave it out.');
const WorkflowIdArg = z.string().min(1).describe('Workflow id, e.g. "expense-compliance".');
const OffsetArg = z
  .number()
  .int()
  .min(0)
  .optional()
  .describe('Character offset to start reading at (default 0). Pass nextOffset from the previous read to read on.');
const LimitArg = z
  .number()
  .int()
  .min(1)
  .max(MAX_WINDOW_CHARS)
  .optional()
  .describe(`Most characters to return (default ${DEFAULT_WINDOW_CHARS}, at most ${MAX_WINDOW_CHARS}).`);

function foreignProject(ctx: ReadToolContext, projectId: string | number | undefined): ToolEnvelope | undefined {
  if (projectId === undefined || String(projectId) === ctx.session.projectId) return undefined;
  return toolError('AI_TOOL_FORBIDDEN', {
    message: 'Tools can only read the project of this session.',
    hints: ['Leave projectId out: every builder.* tool reads the project this session works on.'],
  });
}

function metaFor(view: EffectiveView, key: string, hint?: string): ToolMeta {
  return { revision: revisionOf(view.baseline, key), staged: view.entries.has(key), ...(hint ? { hint } : {}) };
}

function listed(ids: readonly string[], limit = MAX_LISTED): string {
  const more = ids.length > limit ? ` (and ${ids.length - limit} more)` : '';
  return `${ids.slice(0, limit).join(', ')}${more}`;
}

function existingHint(what: string, ids: readonly string[]): string {
  return ids.length === 0 ? `This project has no ${what}.` : `Existing ${what}: ${listed(ids)}.`;
}

const workflowIds = (pkg: BmadPackage) => pkg.workflows.map((w) => w.id);
const agentIds = (pkg: BmadPackage) => agentsOf(pkg).flatMap((a) => (typeof a.id === 'string' ? [a.id] : []));
const assetPaths = (pkg: BmadPackage) => pkg.assets.map((a) => a.path);

function workflowNotFound(pkg: BmadPackage, workflowId: string): ToolEnvelope {
  return toolError('WORKFLOW_NOT_FOUND', {
    message: `There is no workflow "${workflowId}" in this project.`,
    hints: [existingHint('workflows', workflowIds(pkg))],
  });
}

function stepNotFound(workflow: BmadWorkflow, graph: GraphInfo | null, nodeId: string): ToolEnvelope {
  const node = graph?.nodes.find((n) => n.id === nodeId);
  const nodeIds = stepsOf(workflow, graph).map((s) => s.nodeId);
  return toolError('STEP_NOT_FOUND', {
    message: node
      ? `Node "${nodeId}" of workflow "${workflow.id}" has no step file${node.file ? ` (${node.file})` : ''}.`
      : `Workflow "${workflow.id}" has no step "${nodeId}".`,
    hints: [existingHint(`steps in workflow "${workflow.id}"`, nodeIds)],
  });
}

function windowFields(window: TextWindow) {
  return {
    totalChars: window.totalChars,
    offset: window.offset,
    truncated: window.truncated,
    ...(window.nextOffset === undefined ? {} : { nextOffset: window.nextOffset }),
  };
}

// ---- builder.context.get --------------------------------------------------------------------------

/** The normative rules the model works under, per target (seed 001 §4.5, spec README §1). */
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
  const parsed = parseFrontmatter(workflowMd);
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
  const variableKeys = variableKeysOf(frontmatterOf(workflow.workflowMd));
  const steps = stepsOf(workflow, graph);
  const step = nodeId === null ? undefined : steps.find((s) => s.nodeId === nodeId);
  const edges = {
    inEdges: (graph?.edges ?? []).filter((e) => e.to === nodeId).map(({ from, label }) => ({ from, label })),
    outEdges: (graph?.edges ?? []).filter((e) => e.from === nodeId).map(({ to, label, isDefault, conditionText }) => ({ to, label, isDefault, conditionText })),
  };
  if (!step?.file) {
    const suggestedPath = step?.node?.file ?? (nodeId === null ? undefined : `workflows/${workflow.id}/steps/${nodeId}.md`);
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
      frontmatter: frontmatterOf(step.file.markdown),
    },
    digest: {
      node: step.node ?? null,
      ...edges,
      variableKeys,
      // Paths only: the model reads an asset's content with builder.asset.read (seed 000 §7.2).
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
function targetKey(session: SessionMeta): string | undefined {
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

/** The initial context envelope (seed 001 §7.1–§7.2), filled for the session's target. */
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

export const ContextGetArgs = z.strictObject({
  projectId: ProjectIdArg,
  sessionId: z.string().optional().describe('Optional. The tool always describes the current session.'),
});
export type ContextGetArgs = z.infer<typeof ContextGetArgs>;

const contextGet: ToolDefinition<typeof ContextGetArgs> = {
  name: 'builder.context.get',
  description:
    'The context of this session: its target and mode, the domain profile, the rules, a snapshot of the target, what it depends on, your tools and the revisions.',
  args: ContextGetArgs,
  run(ctx, args) {
    const denied = foreignProject(ctx, args.projectId);
    if (denied) return denied;
    if (args.sessionId !== undefined && args.sessionId !== ctx.session.sessionId) {
      return toolError('AI_TOOL_FORBIDDEN', { message: 'Tools can only read the session they run in.' });
    }
    const key = targetKey(ctx.session);
    const meta: ToolMeta = key === undefined ? { revision: null, staged: false } : metaFor(ctx.view, key);
    return toolOk(buildContextEnvelope(ctx), meta);
  },
};

// ---- builder.workflow.read ------------------------------------------------------------------------

export const WorkflowReadArgs = z.strictObject({ projectId: ProjectIdArg, workflowId: WorkflowIdArg });
export type WorkflowReadArgs = z.infer<typeof WorkflowReadArgs>;

function workflowScopeStaged(view: EffectiveView, workflowId: string): boolean {
  return [...view.entries.keys()].some((key) => {
    const scope = scopeOf(key);
    return scope?.kind === 'workflow' && scope.workflowId === workflowId;
  });
}

const workflowRead: ToolDefinition<typeof WorkflowReadArgs> = {
  name: 'builder.workflow.read',
  description: 'A workflow: its workflow.md, its graph (parsed and as text) and the list of its steps.',
  args: WorkflowReadArgs,
  run(ctx, args) {
    const denied = foreignProject(ctx, args.projectId);
    if (denied) return denied;
    const { view } = ctx;
    const workflow = findWorkflow(view.pkg, args.workflowId);
    if (!workflow) return workflowNotFound(view.pkg, args.workflowId);
    const graph = readGraph(workflow.graphJson);
    const parsedGraph = parseJsonLoose(workflow.graphJson);
    const revision = revisionOf(view.baseline, formatObjectKey({ kind: 'workflow', workflowId: workflow.id }));
    const steps = stepsOf(workflow, graph).map((s) => {
      const title = s.node?.title ?? frontmatterOf(s.file?.markdown ?? null)?.title;
      return {
        nodeId: s.nodeId,
        path: s.file?.path ?? s.node?.file ?? null,
        ...(typeof title === 'string' ? { title } : {}),
        ...(s.file ? {} : { missing: true }),
      };
    });
    return toolOk(
      {
        workflowId: workflow.id,
        workflowMd: workflow.workflowMd,
        graph: isJsonObject(parsedGraph) ? parsedGraph : null,
        graphJson: workflow.graphJson,
        steps,
        revision,
      },
      { revision, staged: workflowScopeStaged(view, workflow.id) },
    );
  },
};

// ---- builder.step.read ----------------------------------------------------------------------------

export const StepReadArgs = z.strictObject({
  projectId: ProjectIdArg,
  workflowId: WorkflowIdArg,
  nodeId: z.string().min(1).describe('The graph node id of the step, e.g. "check-lines".'),
  offset: OffsetArg,
  limit: LimitArg,
});
export type StepReadArgs = z.infer<typeof StepReadArgs>;

const stepRead: ToolDefinition<typeof StepReadArgs> = {
  name: 'builder.step.read',
  description: 'One step file: its Markdown (windowed when long) and its parsed frontmatter.',
  args: StepReadArgs,
  run(ctx, args) {
    const denied = foreignProject(ctx, args.projectId);
    if (denied) return denied;
    const { view } = ctx;
    const workflow = findWorkflow(view.pkg, args.workflowId);
    if (!workflow) return workflowNotFound(view.pkg, args.workflowId);
    const graph = readGraph(workflow.graphJson);
    const file = findStep(workflow, args.nodeId, graph);
    if (!file) return stepNotFound(workflow, graph, args.nodeId);
    const key = formatObjectKey({ kind: 'step', workflowId: workflow.id, nodeId: args.nodeId });
    const window = windowText(file.markdown, args.offset, args.limit);
    const revision = revisionOf(view.baseline, key);
    return toolOk(
      {
        workflowId: workflow.id,
        nodeId: args.nodeId,
        path: file.path,
        markdown: window.content,
        ...windowFields(window),
        frontmatter: frontmatterOf(file.markdown),
        revision,
      },
      metaFor(view, key, readMoreHint('builder.step.read', window)),
    );
  },
};

// ---- builder.agent.read ---------------------------------------------------------------------------

export const AgentReadArgs = z.strictObject({
  projectId: ProjectIdArg,
  agentId: z.string().min(1).describe('The agent id, as in agents.json and in node/step agentId.'),
});
export type AgentReadArgs = z.infer<typeof AgentReadArgs>;

const agentRead: ToolDefinition<typeof AgentReadArgs> = {
  name: 'builder.agent.read',
  description: 'One agent definition from agents.json.',
  args: AgentReadArgs,
  run(ctx, args) {
    const denied = foreignProject(ctx, args.projectId);
    if (denied) return denied;
    const { view } = ctx;
    const key = formatObjectKey({ kind: 'agent', agentId: args.agentId });
    const revision = revisionOf(view.baseline, key);
    const staged = view.entries.get(key);
    if (staged && !staged.deleted && !isJsonObject(parseJsonLoose(staged.content))) {
      // A staged agent that is not a JSON object: show it as written so it can be fixed.
      const hint = 'The staged text of this agent is not a JSON object; stage a corrected agent.';
      return toolOk({ agentId: args.agentId, agent: null, raw: staged.content, revision }, metaFor(view, key, hint));
    }
    const agent = findAgent(view.pkg, args.agentId);
    if (!agent) {
      return toolError('AGENT_NOT_FOUND', {
        message: `There is no agent "${args.agentId}" in this project.`,
        hints: [existingHint('agents', agentIds(view.pkg))],
      });
    }
    return toolOk({ agentId: args.agentId, agent, revision }, metaFor(view, key));
  },
};

// ---- builder.asset.read ---------------------------------------------------------------------------

export const AssetReadArgs = z.strictObject({
  projectId: ProjectIdArg,
  path: z.string().min(1).describe('The asset path from the package root, e.g. "assets/policies/expense-policy.md".'),
  offset: OffsetArg,
  limit: LimitArg,
});
export type AssetReadArgs = z.infer<typeof AssetReadArgs>;

const assetRead: ToolDefinition<typeof AssetReadArgs> = {
  name: 'builder.asset.read',
  description: 'One asset file (windowed when long).',
  args: AssetReadArgs,
  run(ctx, args) {
    const denied = foreignProject(ctx, args.projectId);
    if (denied) return denied;
    const check = checkAssetPath(args.path);
    if (!check.ok) return toolError('ASSET_INVALID_PATH', { message: check.message, hints: [check.hint] });
    const { view } = ctx;
    const asset = view.pkg.assets.find((a) => a.path === args.path);
    if (!asset) {
      return toolError('ASSET_NOT_FOUND', {
        message: `There is no asset ${args.path} in this project.`,
        hints: [existingHint('assets', assetPaths(view.pkg))],
      });
    }
    const window = windowText(asset.content, args.offset, args.limit);
    const key = formatObjectKey({ kind: 'asset', path: asset.path });
    return toolOk(
      { path: asset.path, content: window.content, ...windowFields(window) },
      metaFor(view, key, readMoreHint('builder.asset.read', window)),
    );
  },
};

// ---- builder.refs.find ----------------------------------------------------------------------------

export const RefsFindArgs = z.strictObject({
  projectId: ProjectIdArg,
  locator: z
    .strictObject({
      type: z.enum(['workflow', 'step', 'agent', 'asset']).describe('What kind of object to find references of.'),
      id: z.string().min(1).describe('Workflow id, node id, agent id, or asset path.'),
      workflowId: z.string().min(1).optional().describe("For a step: its workflow id (default: the session's workflow)."),
    })
    .describe('The object whose references to find.'),
});
export type RefsFindArgs = z.infer<typeof RefsFindArgs>;

type Located = { ok: true; key: string; exists: boolean; refs: Refs; locator: JsonObject } | { ok: false; error: ToolEnvelope };

/** Agents and assets may be referenced while missing (that is what needs fixing), so they are found then. */
function locate(ctx: ReadToolContext, locator: RefsFindArgs['locator']): Located {
  const { pkg } = ctx.view;
  switch (locator.type) {
    case 'workflow': {
      if (!findWorkflow(pkg, locator.id)) return { ok: false, error: workflowNotFound(pkg, locator.id) };
      const key = formatObjectKey({ kind: 'workflow', workflowId: locator.id });
      return { ok: true, key, exists: true, refs: refsOfWorkflow(pkg, locator.id), locator: { type: 'workflow', id: locator.id } };
    }
    case 'step': {
      const workflowId = locator.workflowId ?? ctx.session.workflowId;
      if (workflowId === null) {
        return { ok: false, error: toolError('VALIDATION_FAILED', { message: 'A step locator needs its workflowId.' }) };
      }
      const workflow = findWorkflow(pkg, workflowId);
      if (!workflow) return { ok: false, error: workflowNotFound(pkg, workflowId) };
      const graph = readGraph(workflow.graphJson);
      const step = stepsOf(workflow, graph).find((s) => s.nodeId === locator.id);
      if (!step) return { ok: false, error: stepNotFound(workflow, graph, locator.id) };
      const key = formatObjectKey({ kind: 'step', workflowId, nodeId: locator.id });
      const refs = refsOfStep(pkg, workflowId, locator.id);
      return { ok: true, key, exists: step.file !== undefined, refs, locator: { type: 'step', id: locator.id, workflowId } };
    }
    case 'agent': {
      const refs = refsOfAgent(pkg, locator.id);
      const exists = findAgent(pkg, locator.id) !== undefined;
      if (!exists && refs.inbound.length === 0) {
        const error = toolError('AGENT_NOT_FOUND', {
          message: `There is no agent "${locator.id}" in this project, and nothing refers to one.`,
          hints: [existingHint('agents', agentIds(pkg))],
        });
        return { ok: false, error };
      }
      const key = formatObjectKey({ kind: 'agent', agentId: locator.id });
      return { ok: true, key, exists, refs, locator: { type: 'agent', id: locator.id } };
    }
    case 'asset': {
      const check = checkAssetPath(locator.id);
      if (!check.ok) return { ok: false, error: toolError('ASSET_INVALID_PATH', { message: check.message, hints: [check.hint] }) };
      const refs = refsOfAsset(pkg, locator.id);
      const exists = pkg.assets.some((a) => a.path === locator.id);
      if (!exists && refs.inbound.length === 0) {
        const error = toolError('ASSET_NOT_FOUND', {
          message: `There is no asset ${locator.id} in this project, and no step refers to one.`,
          hints: [existingHint('assets', assetPaths(pkg))],
        });
        return { ok: false, error };
      }
      const key = formatObjectKey({ kind: 'asset', path: locator.id });
      return { ok: true, key, exists, refs, locator: { type: 'asset', id: locator.id } };
    }
    default: {
      const never: never = locator.type;
      throw new Error(`unknown locator type ${String(never)}`);
    }
  }
}

const refsFind: ToolDefinition<typeof RefsFindArgs> = {
  name: 'builder.refs.find',
  description:
    'What refers to an object (inbound) and what it refers to (outbound): graph edges between steps, agents used by nodes and steps, assets mentioned by steps.',
  args: RefsFindArgs,
  run(ctx, args) {
    const denied = foreignProject(ctx, args.projectId);
    if (denied) return denied;
    const located = locate(ctx, args.locator);
    if (!located.ok) return located.error;
    const { key, exists, refs, locator } = located;
    return toolOk({ locator, exists, inbound: refs.inbound, outbound: refs.outbound }, metaFor(ctx.view, key));
  },
};

// ---- the table ------------------------------------------------------------------------------------

export const READ_TOOLS = {
  'builder.context.get': contextGet,
  'builder.workflow.read': workflowRead,
  'builder.step.read': stepRead,
  'builder.agent.read': agentRead,
  'builder.asset.read': assetRead,
  'builder.refs.find': refsFind,
} as const;

export type ReadToolName = keyof typeof READ_TOOLS;
