/**
 * Pipeline stage 3, reference integrity: every graph node has a step file whose frontmatter nodeId
 * is the node's id, every agentId (node or step) names an agent, and every `assets/...` path a step
 * mentions exists. Also warns when a step disagrees with its node (type, agent, transitions).
 */
import { assetRefExists, assetRefsInBody, assetRefsInFrontmatter } from './asset-refs.ts';
import { errorIssue, warningIssue } from './issues.ts';
import type { ValidationIssue } from './issues.ts';
import { toPointer } from './json-pointer.ts';
import type { GraphNode, StepFrontmatter, WorkflowGraph } from './models.ts';
import { DEFAULT_AGENTS_PATH } from './package.ts';
import type { ParsedStep } from './parse-package.ts';
import { dirOf } from './paths.ts';
import type { ValidationStage } from './stage.ts';

const known = (ids: ReadonlySet<string>) => (ids.size === 0 ? 'none' : [...ids].join(', '));

export function agentNotFound(agentId: string, filePath: string, pointer: string, agentIds: ReadonlySet<string>, agentsPath: string) {
  return errorIssue('AGENT_NOT_FOUND', filePath, `agentId "${agentId}" is not an agent in ${agentsPath}.`, {
    params: { agentId, agentsPath },
    pointer,
    hint: `Known agents: ${known(agentIds)}. Add the agent to ${agentsPath}, or pick an existing one.`,
  });
}

export interface StepContext {
  filePath: string;
  frontmatter: StepFrontmatter;
  body: string;
  bodyStartLine: number;
  /** The graph node that uses this file, with the ids of its successors. */
  node?: { node: GraphNode; successors: ReadonlySet<string> };
  agentIds?: ReadonlySet<string>;
  agentsPath?: string;
  assetPaths?: ReadonlySet<string>;
}

/** Reference checks of one step file against its node, the agents and the assets. */
export function checkStepReferences(step: StepContext): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const { filePath, frontmatter: fm } = step;
  if (step.node) {
    const { node, successors } = step.node;
    if (fm.nodeId !== node.id) {
      issues.push(
        errorIssue('STEP_NODE_ID_MISMATCH', filePath, `nodeId is "${fm.nodeId}", but graph node "${node.id}" uses this file.`, {
          pointer: '/nodeId',
          hint: `Set nodeId: "${node.id}", or point the node at the right file.`,
        }),
      );
    }
    if (fm.type !== node.type) {
      issues.push(
        warningIssue('STEP_TYPE_MISMATCH', filePath, `type is "${fm.type}", but graph node "${node.id}" is a "${node.type}" node.`, {
          params: { type: fm.type, id: node.id, nodeType: node.type },
          pointer: '/type',
          hint: `The graph decides; set type: "${node.type}".`,
        }),
      );
    }
    if (fm.agentId && node.agentId && fm.agentId !== node.agentId) {
      issues.push(
        warningIssue('STEP_AGENT_MISMATCH', filePath, `agentId is "${fm.agentId}", but graph node "${node.id}" names agent "${node.agentId}".`, {
          params: { agentId: fm.agentId, id: node.id, nodeAgentId: node.agentId },
          pointer: '/agentId',
          hint: 'Use the same agent in the step and in the graph.',
        }),
      );
    }
    (fm.transitions ?? []).forEach((t, i) => {
      if (successors.has(t.to)) return;
      issues.push(
        warningIssue('STEP_TRANSITION_MISMATCH', filePath, `Transition to "${t.to}" has no matching edge from "${node.id}" in the graph.`, {
          params: { to: t.to, id: node.id },
          pointer: `/transitions/${i}/to`,
          hint: `The graph allows: ${known(successors)}.`,
        }),
      );
    });
  }
  if (step.agentIds && fm.agentId && !step.agentIds.has(fm.agentId)) {
    issues.push(agentNotFound(fm.agentId, filePath, '/agentId', step.agentIds, step.agentsPath ?? DEFAULT_AGENTS_PATH));
  }
  if (step.assetPaths) {
    const assets = step.assetPaths;
    const hint = 'Create the asset, or fix the path (assets live under assets/, e.g. @pkg/assets/templates/plan.md).';
    for (const ref of assetRefsInFrontmatter(fm)) {
      if (assetRefExists(ref.path, assets)) continue;
      issues.push(
        errorIssue('ASSET_MISSING', filePath, `${ref.path} is referenced but the package has no such asset.`, { params: { path: ref.path }, pointer: toPointer(ref.at), hint }),
      );
    }
    for (const ref of assetRefsInBody(step.body, step.bodyStartLine)) {
      if (assetRefExists(ref.path, assets)) continue;
      issues.push(
        errorIssue('ASSET_MISSING', filePath, `Line ${ref.line} references ${ref.path}, but the package has no such asset.`, { params: { path: ref.path }, hint }),
      );
    }
  }
  return issues;
}

/** Graph-side references: each node's file is a step file, and its agentId exists. */
export function checkNodeReferences(
  graph: WorkflowGraph,
  graphPath: string,
  options: { stepPaths?: ReadonlySet<string>; workflowDir?: string; agentIds?: ReadonlySet<string>; agentsPath?: string },
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  graph.nodes.forEach((node, i) => {
    if (options.stepPaths && !options.stepPaths.has(node.file)) {
      const guess = `${options.workflowDir ?? ''}${node.file}`;
      issues.push(
        errorIssue('STEP_FILE_MISSING', graphPath, `Node "${node.id}" uses step file ${node.file}, which does not exist.`, {
          params: { id: node.id, file: node.file },
          pointer: `/nodes/${i}/file`,
          hint:
            options.workflowDir && options.stepPaths.has(guess)
              ? `node.file is relative to the package root: use "${guess}".`
              : 'Create the step file, or fix the path (relative to the package root).',
        }),
      );
    }
    if (options.agentIds && node.agentId && !options.agentIds.has(node.agentId)) {
      issues.push(agentNotFound(node.agentId, graphPath, `/nodes/${i}/agentId`, options.agentIds, options.agentsPath ?? DEFAULT_AGENTS_PATH));
    }
  });
  return issues;
}

/** Every node's successors, from one pass over the edges (a filter per node was quadratic in a 500-step graph). */
function successorMap(graph: WorkflowGraph): Map<string, Set<string>> {
  const successors = new Map<string, Set<string>>();
  for (const e of graph.edges) {
    const set = successors.get(e.from);
    if (set) set.add(e.to);
    else successors.set(e.from, new Set([e.to]));
  }
  return successors;
}

const NO_SUCCESSORS: ReadonlySet<string> = new Set();

export const referenceStage: ValidationStage = {
  id: 'references',
  order: 3,
  run({ pkg, parsed, report }) {
    const agentIds = new Set(parsed.agents.agents.map((a) => a.id));
    const agentsPath = pkg.agentsPath ?? DEFAULT_AGENTS_PATH;
    const assetPaths = new Set(pkg.assets.map((a) => a.path));
    for (const w of parsed.workflows) {
      const stepsByPath = new Map<string, ParsedStep>(w.steps.map((s) => [s.file.path, s]));
      const allStepPaths = new Set(w.workflow.steps.map((s) => s.path));
      report(
        ...checkNodeReferences(w.graph, w.workflow.graphPath, {
          stepPaths: allStepPaths,
          workflowDir: dirOf(w.workflow.workflowMdPath),
          agentIds,
          agentsPath,
        }),
      );
      const nodeByFile = new Map<string, GraphNode>();
      for (const node of w.graph.nodes) if (!nodeByFile.has(node.file)) nodeByFile.set(node.file, node);
      for (const node of w.graph.nodes) {
        const step = stepsByPath.get(node.file);
        if (!step || nodeByFile.get(node.file) === node) continue;
        // A second node on the same file: that file's nodeId can only match one of them.
        report(
          errorIssue('STEP_NODE_ID_MISMATCH', step.file.path, `Nodes "${nodeByFile.get(node.file)!.id}" and "${node.id}" share this step file.`, {
            pointer: '/nodeId',
            hint: 'Give every node its own step file.',
          }),
        );
      }
      const successors = successorMap(w.graph);
      for (const step of w.steps) {
        const node = nodeByFile.get(step.file.path);
        if (!node) {
          report(
            warningIssue('STEP_ORPHAN_FILE', step.file.path, 'No node of the graph uses this step file.', {
              hint: 'Add a node for it to the graph, or delete the file.',
            }),
          );
        }
        report(
          ...checkStepReferences({
            filePath: step.file.path,
            frontmatter: step.frontmatter,
            body: step.body,
            bodyStartLine: step.bodyStartLine,
            ...(node ? { node: { node, successors: successors.get(node.id) ?? NO_SUCCESSORS } } : {}),
            agentIds,
            agentsPath,
            assetPaths,
          }),
        );
      }
    }
  },
};
