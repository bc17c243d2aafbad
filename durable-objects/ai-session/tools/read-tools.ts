/**
 * The read-only `builder.*` tools the model may call: plain functions over the session's effective view (overlay first), each with the zod
 * schema of its arguments, from which the JSON Schema sent to the model is generated. Every result
 * is the uniform tool envelope. Nothing here writes, and nothing reads outside the session's project.
 * `builder.context.get` answers with the envelope built in context-envelope.ts.
 */
import * as z from 'zod';
import { checkAssetPath } from '../../../shared/bmad/index.ts';
import type { BmadPackage, BmadWorkflow } from '../../../shared/bmad/index.ts';
import { toolError, toolOk } from '../../../shared/ai/tool-envelope.ts';
import type { ToolEnvelope, ToolMeta } from '../../../shared/ai/tool-envelope.ts';
import { formatObjectKey } from '../../../shared/object-keys.ts';
import { revisionOf, scopeOf } from '../overlay/effective-view.ts';
import type { EffectiveView } from '../overlay/effective-view.ts';
import {
  agentIds,
  assetPaths,
  findAgent,
  findStep,
  findWorkflow,
  isJsonObject,
  parseJsonLoose,
  readGraph,
  stepsOf,
  workflowIds,
} from '../overlay/package-lookups.ts';
import type { GraphInfo, JsonObject } from '../overlay/package-lookups.ts';
import { buildContextEnvelope, targetKey, windowFields } from './context-envelope.ts';
import type { ReadToolContext } from './read-context.ts';
import { refsOfAgent, refsOfAsset, refsOfStep, refsOfWorkflow } from './refs.ts';
import type { Refs } from './refs.ts';
import { DEFAULT_WINDOW_CHARS, MAX_WINDOW_CHARS, readMoreHint, windowText } from './window.ts';
import { frontmatterDataOf } from './frontmatter-memo.ts';

export type { ReadToolContext };

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

// ---- builder.context.get --------------------------------------------------------------------------

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
      const title = s.node?.title ?? frontmatterDataOf(s.file?.markdown ?? null)?.title;
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
        frontmatter: frontmatterDataOf(file.markdown),
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
      // Left out: the session's workflow, else the project's only one.
      const workflowId = locator.workflowId ?? ctx.session.workflowId ?? (pkg.workflows.length === 1 ? pkg.workflows[0]!.id : null);
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
