/**
 * What references what in a package, for `builder.refs.find` and the context envelope: graph edges
 * between steps, the agents nodes and steps name, and the `assets/...` paths steps mention (the
 * same paths validation checks). Computed over whatever package it is given: the tools pass the
 * effective one. Every list is deduplicated and sorted, so equal packages give equal answers.
 */
import { assetRefsInFrontmatter, assetRefsInText } from '../../../shared/bmad/asset-refs.ts';
import type { BmadPackage, BmadWorkflow } from '../../../shared/bmad/index.ts';
import { findWorkflow, readGraph, stepsOf } from '../overlay/package-lookups.ts';
import type { GraphInfo, StepInfo } from '../overlay/package-lookups.ts';
import { frontmatterDataOf, parseFrontmatterOnce } from './frontmatter-memo.ts';

export type Ref =
  | { type: 'workflow'; workflowId: string }
  | { type: 'step'; workflowId: string; nodeId: string }
  | { type: 'agent'; agentId: string }
  | { type: 'asset'; path: string };

export interface Refs {
  inbound: Ref[];
  outbound: Ref[];
}

const TYPE_ORDER: Record<Ref['type'], number> = { workflow: 0, step: 1, agent: 2, asset: 3 };

function sortKey(ref: Ref): string {
  switch (ref.type) {
    case 'workflow':
      return ref.workflowId;
    case 'step':
      return `${ref.workflowId}\n${ref.nodeId}`;
    case 'agent':
      return ref.agentId;
    case 'asset':
      return ref.path;
    default: {
      const never: never = ref;
      throw new Error(`unknown ref ${String(never)}`);
    }
  }
}

/** Deduplicated, ordered by type (workflow, step, agent, asset), then by id. */
export function sortRefs(refs: Iterable<Ref>): Ref[] {
  const unique = new Map<string, Ref>();
  for (const ref of refs) unique.set(`${ref.type}\n${sortKey(ref)}`, ref);
  return [...unique.values()].sort((a, b) => {
    const byType = TYPE_ORDER[a.type] - TYPE_ORDER[b.type];
    if (byType !== 0) return byType;
    const [x, y] = [sortKey(a), sortKey(b)];
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/**
 * The `assets/...` paths a step mentions: in its body and in its frontmatter except `outputs`
 * (files the step writes), as validation reads them. Sorted, without duplicates.
 */
export function assetPathsOfStep(markdown: string): string[] {
  const parsed = parseFrontmatterOnce(markdown);
  const found = parsed.ok
    ? [...assetRefsInFrontmatter(parsed.value.data), ...assetRefsInText(parsed.value.body)]
    : assetRefsInText(markdown);
  return [...new Set(found.map((ref) => ref.path))].sort();
}

/** A reference names the asset, or (ending in `/`) a folder that holds it. */
export function refCoversAsset(ref: string, assetPath: string): boolean {
  return ref === assetPath || (ref.endsWith('/') && assetPath.startsWith(ref));
}

/** The agent ids a step names: its node's and its frontmatter's. */
export function agentIdsOfStep(step: StepInfo): string[] {
  const fromFile = frontmatterDataOf(step.file?.markdown ?? null)?.agentId;
  const ids = [step.node?.agentId, typeof fromFile === 'string' ? fromFile : undefined];
  return [...new Set(ids.filter((id): id is string => id !== undefined && id !== ''))];
}

/** Nodes the step leads to: graph edges, and frontmatter transitions (which should agree). */
function successorsOf(step: StepInfo, graph: GraphInfo | null): string[] {
  const fromGraph = (graph?.edges ?? []).filter((e) => e.from === step.nodeId).map((e) => e.to);
  const transitions = frontmatterDataOf(step.file?.markdown ?? null)?.transitions;
  const fromFile = Array.isArray(transitions)
    ? transitions.map((t: unknown) => (t && typeof t === 'object' ? (t as { to?: unknown }).to : undefined))
    : [];
  return [...fromGraph, ...fromFile.filter((to): to is string => typeof to === 'string')];
}

const stepRef = (workflowId: string, nodeId: string): Ref => ({ type: 'step', workflowId, nodeId });

function everyStep(pkg: BmadPackage): Array<{ workflow: BmadWorkflow; step: StepInfo }> {
  return pkg.workflows.flatMap((workflow) => stepsOf(workflow).map((step) => ({ workflow, step })));
}

/** Outbound: successor steps, its agents, its assets. Inbound: predecessor steps and its workflow. */
export function refsOfStep(pkg: BmadPackage, workflowId: string, nodeId: string): Refs {
  const workflow = findWorkflow(pkg, workflowId);
  if (!workflow) return { inbound: [], outbound: [] };
  const graph = readGraph(workflow.graphJson);
  const step = stepsOf(workflow, graph).find((s) => s.nodeId === nodeId);
  if (!step) return { inbound: [], outbound: [] };
  const predecessors = (graph?.edges ?? []).filter((e) => e.to === nodeId).map((e) => stepRef(workflowId, e.from));
  return {
    inbound: sortRefs([{ type: 'workflow', workflowId }, ...predecessors]),
    outbound: sortRefs([
      ...successorsOf(step, graph).map((to) => stepRef(workflowId, to)),
      ...agentIdsOfStep(step).map((agentId): Ref => ({ type: 'agent', agentId })),
      ...assetPathsOfStep(step.file?.markdown ?? '').map((path): Ref => ({ type: 'asset', path })),
    ]),
  };
}

/** Outbound: the workflow's steps and the agents they use. */
export function refsOfWorkflow(pkg: BmadPackage, workflowId: string): Refs {
  const workflow = findWorkflow(pkg, workflowId);
  if (!workflow) return { inbound: [], outbound: [] };
  const steps = stepsOf(workflow);
  return {
    inbound: [],
    outbound: sortRefs([
      ...steps.map((s) => stepRef(workflowId, s.nodeId)),
      ...steps.flatMap(agentIdsOfStep).map((agentId): Ref => ({ type: 'agent', agentId })),
    ]),
  };
}

/** Inbound: every step (node or file) in any workflow that names the agent. */
export function refsOfAgent(pkg: BmadPackage, agentId: string): Refs {
  const users = everyStep(pkg).filter(({ step }) => agentIdsOfStep(step).includes(agentId));
  return { inbound: sortRefs(users.map(({ workflow, step }) => stepRef(workflow.id, step.nodeId))), outbound: [] };
}

/** Inbound: every step in any workflow that mentions the asset (or a folder holding it). */
export function refsOfAsset(pkg: BmadPackage, path: string): Refs {
  const users = everyStep(pkg).filter(
    ({ step }) => step.file !== undefined && assetPathsOfStep(step.file.markdown).some((ref) => refCoversAsset(ref, path)),
  );
  return { inbound: sortRefs(users.map(({ workflow, step }) => stepRef(workflow.id, step.nodeId))), outbound: [] };
}
