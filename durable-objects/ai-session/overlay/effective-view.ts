/**
 * The effective view of an AI session: the stored package (the baseline) with the session's overlay
 * on top, overlay first: an object the session staged hides the stored one. The read
 * tools, validation, the diff and the UI all read objects through it by object key. The lenient
 * lookups it is built on live in package-lookups.ts.
 */
import { sha256Hex } from '../../../shared/hash.ts';
import { deriveManifest } from '../../../shared/bmad/index.ts';
import type { BmadPackage, BmadStepFile, BmadWorkflow } from '../../../shared/bmad/index.ts';
import { isSafeRelativePath } from '../../../shared/bmad/paths.ts';
import { formatObjectKey, parseObjectKey } from '../../../shared/object-keys.ts';
import type { Baseline, ChangedFile, FileAction, KeyScope, OverlayEntry } from '../../../shared/ai/overlay.ts';
import {
  agentIdOf,
  agentsPathOf,
  findAgent,
  findStep,
  findWorkflow,
  isJsonObject,
  newStepPath,
  parseJsonLoose,
  readAgentsDocument,
  readGraph,
  stepNodeId,
} from './package-lookups.ts';
import type { GraphInfo } from './package-lookups.ts';

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

// ---- objects by key ---------------------------------------------------------------------------

/** The text of one object of a package by object key; null when the package does not hold it. */
export function contentOf(pkg: BmadPackage, key: string): string | null {
  const parsed = parseObjectKey(key);
  switch (parsed?.kind) {
    case 'workflow':
      return findWorkflow(pkg, parsed.workflowId)?.workflowMd ?? null;
    case 'graph':
      return findWorkflow(pkg, parsed.workflowId)?.graphJson ?? null;
    case 'step': {
      const workflow = findWorkflow(pkg, parsed.workflowId);
      return (workflow && findStep(workflow, parsed.nodeId)?.markdown) ?? null;
    }
    case 'agent': {
      const agent = findAgent(pkg, parsed.agentId);
      return agent ? JSON.stringify(agent, null, 2) : null;
    }
    case 'asset':
      return pkg.assets.find((a) => a.path === parsed.path)?.content ?? null;
    case 'workflow-name':
    case undefined:
      // A workflow's name is project metadata, not a package file.
      return null;
    default: {
      const never: never = parsed;
      throw new Error(`unknown object key ${String(never)}`);
    }
  }
}

/** The path, inside the package, of the file an object lives in (agents: agents.json); undefined when absent. */
export function pathOf(pkg: BmadPackage, key: string): string | undefined {
  const parsed = parseObjectKey(key);
  switch (parsed?.kind) {
    case 'workflow':
      return findWorkflow(pkg, parsed.workflowId)?.workflowMdPath;
    case 'graph':
      return findWorkflow(pkg, parsed.workflowId)?.graphPath;
    case 'step': {
      const workflow = findWorkflow(pkg, parsed.workflowId);
      return workflow && findStep(workflow, parsed.nodeId)?.path;
    }
    case 'agent':
      return findAgent(pkg, parsed.agentId) ? agentsPathOf(pkg) : undefined;
    case 'asset':
      return pkg.assets.some((a) => a.path === parsed.path) ? parsed.path : undefined;
    case 'workflow-name':
    case undefined:
      return undefined;
    default: {
      const never: never = parsed;
      throw new Error(`unknown object key ${String(never)}`);
    }
  }
}

/**
 * The object key of the file at `filePath`, for mapping validation issues to keys. agents.json
 * and bmad.json hold no single object, so they have none.
 */
export function keyOfPath(pkg: BmadPackage, filePath: string): string | undefined {
  for (const workflow of pkg.workflows) {
    if (filePath === workflow.workflowMdPath) return formatObjectKey({ kind: 'workflow', workflowId: workflow.id });
    if (filePath === workflow.graphPath) return formatObjectKey({ kind: 'graph', workflowId: workflow.id });
    const step = workflow.steps.find((s) => s.path === filePath);
    if (!step) continue;
    const nodeId = stepNodeId(step, readGraph(workflow.graphJson));
    return nodeId === undefined ? undefined : formatObjectKey({ kind: 'step', workflowId: workflow.id, nodeId });
  }
  return pkg.assets.some((a) => a.path === filePath) ? formatObjectKey({ kind: 'asset', path: filePath }) : undefined;
}

// ---- baseline + overlay -----------------------------------------------------------------------

/** One entry per key (the last one wins), sorted by key, so the result never depends on order. */
function latestByKey(entries: Iterable<OverlayEntry>): OverlayEntry[] {
  const byKey = new Map<string, OverlayEntry>();
  for (const entry of entries) byKey.set(entry.key, entry);
  return [...byKey.values()].sort((a, b) => byCodeUnits(a.key, b.key));
}

function clonePackage(pkg: BmadPackage): BmadPackage {
  return {
    ...pkg,
    workflows: pkg.workflows.map((w) => ({ ...w, steps: w.steps.map((s) => ({ ...s })) })),
    assets: pkg.assets.map((a) => ({ ...a })),
    ...(pkg.otherFiles ? { otherFiles: pkg.otherFiles.map((f) => ({ ...f })) } : {}),
  };
}

/** The workflow, created empty (both files missing) when the package has none with this id. */
function workflowFor(pkg: BmadPackage, workflowId: string): BmadWorkflow {
  const found = findWorkflow(pkg, workflowId);
  if (found) return found;
  const created: BmadWorkflow = {
    id: workflowId,
    workflowMdPath: `workflows/${workflowId}/workflow.md`,
    graphPath: `workflows/${workflowId}/workflow.graph.json`,
    workflowMd: null,
    graphJson: null,
    steps: [],
  };
  pkg.workflows.push(created);
  return created;
}

function applyWorkflowFile(pkg: BmadPackage, workflowId: string, field: 'workflowMd' | 'graphJson', entry: OverlayEntry): void {
  if (entry.deleted && !findWorkflow(pkg, workflowId)) return;
  workflowFor(pkg, workflowId)[field] = entry.deleted ? null : entry.content;
}

/** Where a staged step lives: its node's file in the effective graph, else where it was, else a new portable name. */
function stepPathFor(pkg: BmadPackage, workflowId: string, nodeId: string, graph: GraphInfo | null, current: BmadStepFile | undefined): string {
  const file = graph?.nodes.find((n) => n.id === nodeId)?.file;
  if (file !== undefined && /\.md$/iu.test(file) && isSafeRelativePath(file)) return file;
  return current?.path ?? newStepPath(pkg, workflowId, nodeId);
}

function applyStep(pkg: BmadPackage, workflowId: string, nodeId: string, entry: OverlayEntry): void {
  if (entry.deleted && !findWorkflow(pkg, workflowId)) return;
  const workflow = workflowFor(pkg, workflowId);
  const graph = readGraph(workflow.graphJson);
  const current = findStep(workflow, nodeId, graph);
  if (entry.deleted) {
    workflow.steps = workflow.steps.filter((s) => s !== current);
    return;
  }
  const next: BmadStepFile = { nodeId, path: stepPathFor(pkg, workflowId, nodeId, graph, current), markdown: entry.content };
  if (current) workflow.steps[workflow.steps.indexOf(current)] = next;
  else workflow.steps.push(next);
}

/**
 * Staged agents go into agents.json at their place (replace by id, else append). An agent whose
 * staged text is not a JSON object is kept as that raw text, as a JSON string in `agents[]`: the
 * file stays readable for every other agent, and validation reports `/agents/<i>` as not an
 * agent, so nothing staged is silently dropped.
 */
function applyAgents(pkg: BmadPackage, staged: Array<{ agentId: string; entry: OverlayEntry }>): void {
  if (staged.length === 0) return;
  const document = readAgentsDocument(pkg.agentsJson);
  const agents = [...document.agents];
  let changed = false;
  for (const { agentId, entry } of staged) {
    const index = agents.findIndex((a) => agentIdOf(a) === agentId);
    if (entry.deleted) {
      if (index < 0) continue;
      agents.splice(index, 1);
    } else {
      const parsed = parseJsonLoose(entry.content);
      const value = isJsonObject(parsed) ? parsed : entry.content;
      if (index >= 0) agents[index] = value;
      else agents.push(value);
    }
    changed = true;
  }
  if (changed) pkg.agentsJson = `${JSON.stringify({ ...document, agents }, null, 2)}\n`;
}

function applyAssets(pkg: BmadPackage, staged: Array<{ path: string; entry: OverlayEntry }>): void {
  if (staged.length === 0) return;
  const byPath = new Map(pkg.assets.map((a) => [a.path, a]));
  for (const { path, entry } of staged) {
    if (entry.deleted) byPath.delete(path);
    else byPath.set(path, { path, content: entry.content });
  }
  pkg.assets = [...byPath.values()].sort((a, b) => byCodeUnits(a.path, b.path));
}

/** A workflow the overlay emptied (both files and every step deleted) is gone. */
function dropEmptiedWorkflows(pkg: BmadPackage, touched: ReadonlySet<string>): void {
  pkg.workflows = pkg.workflows.filter(
    (w) => !touched.has(w.id) || w.workflowMd !== null || w.graphJson !== null || w.steps.length > 0,
  );
  if (pkg.defaultWorkflowId !== undefined && !findWorkflow(pkg, pkg.defaultWorkflowId)) delete pkg.defaultWorkflowId;
}

/**
 * The package as the session sees it: a new package (the baseline is never mutated) with every
 * overlay entry applied: workflow files, then steps (placed by the effective graph), then agents
 * and assets. bmad.json is re-derived when the set of workflows changed.
 */
export function effectivePackage(baseline: BmadPackage, entries: Iterable<OverlayEntry>): BmadPackage {
  const pkg = clonePackage(baseline);
  const staged = latestByKey(entries).map((entry) => ({ entry, key: parseObjectKey(entry.key) }));
  const touched = new Set<string>();
  for (const { entry, key } of staged) {
    if (key?.kind !== 'workflow' && key?.kind !== 'graph') continue;
    applyWorkflowFile(pkg, key.workflowId, key.kind === 'workflow' ? 'workflowMd' : 'graphJson', entry);
    touched.add(key.workflowId);
  }
  for (const { entry, key } of staged) {
    if (key?.kind !== 'step') continue;
    applyStep(pkg, key.workflowId, key.nodeId, entry);
    touched.add(key.workflowId);
  }
  dropEmptiedWorkflows(pkg, touched);
  applyAgents(pkg, staged.flatMap(({ entry, key }) => (key?.kind === 'agent' ? [{ agentId: key.agentId, entry }] : [])));
  applyAssets(pkg, staged.flatMap(({ entry, key }) => (key?.kind === 'asset' ? [{ path: key.path, entry }] : [])));
  const before = baseline.workflows.map((w) => w.id).join('\n');
  if (pkg.manifestJson !== null && pkg.workflows.map((w) => w.id).join('\n') !== before) {
    pkg.manifestJson = `${JSON.stringify(deriveManifest(pkg), null, 2)}\n`;
  }
  return pkg;
}

export interface EffectiveView {
  baseline: Baseline;
  /** The overlay, one entry per key, in key order. */
  entries: ReadonlyMap<string, OverlayEntry>;
  pkg: BmadPackage;
}

export function createEffectiveView(baseline: Baseline, entries: Iterable<OverlayEntry>): EffectiveView {
  const latest = latestByKey(entries);
  return { baseline, entries: new Map(latest.map((e) => [e.key, e])), pkg: effectivePackage(baseline.pkg, latest) };
}

// ---- the diff -----------------------------------------------------------------------------------

/** Keys that name a package file (not `workflow-name:`, not garbage). */
function isFileKey(key: string): boolean {
  const kind = parseObjectKey(key)?.kind;
  return kind !== undefined && kind !== 'workflow-name';
}

/** Agents compare as data: a staged agent that only differs in formatting is not a change. */
function sameContent(key: string, staged: string, before: string): boolean {
  if (staged === before) return true;
  if (parseObjectKey(key)?.kind !== 'agent') return false;
  const parsed = parseJsonLoose(staged);
  return isJsonObject(parsed) && JSON.stringify(parsed, null, 2) === before;
}

function actionOf(entry: OverlayEntry, before: string | null): FileAction | undefined {
  if (entry.deleted) return before === null ? undefined : 'D';
  if (before === null) return 'A';
  return sameContent(entry.key, entry.content, before) ? undefined : 'M';
}

/** What the overlay changes against the baseline (Added/Modified/Deleted), sorted by key. */
export function changedFiles(view: EffectiveView): ChangedFile[] {
  const out: ChangedFile[] = [];
  for (const entry of view.entries.values()) {
    if (!isFileKey(entry.key)) continue;
    const action = actionOf(entry, contentOf(view.baseline.pkg, entry.key));
    if (action === undefined) continue;
    const path = pathOf(view.pkg, entry.key) ?? pathOf(view.baseline.pkg, entry.key);
    out.push({ key: entry.key, action, ...(path === undefined ? {} : { path }) });
  }
  return out.sort((a, b) => byCodeUnits(a.key, b.key));
}

// ---- revisions and hashes -----------------------------------------------------------------------

export function scopeOf(key: string): KeyScope | undefined {
  const parsed = parseObjectKey(key);
  switch (parsed?.kind) {
    case 'workflow':
    case 'graph':
    case 'step':
    case 'workflow-name':
      return { kind: 'workflow', workflowId: parsed.workflowId };
    case 'agent':
      return { kind: 'agents' };
    case 'asset':
      return { kind: 'assets' };
    case undefined:
      return undefined;
    default: {
      const never: never = parsed;
      throw new Error(`unknown object key ${String(never)}`);
    }
  }
}

/** The baseline revision of the scope a key belongs to; 0 when the scope does not exist (yet). */
export function revisionOf(baseline: Baseline, key: string): number {
  const scope = scopeOf(key);
  switch (scope?.kind) {
    case 'workflow': {
      const { workflows } = baseline.revisions;
      // Object.hasOwn: a workflow id such as "constructor" must not read Object.prototype.
      return Object.hasOwn(workflows, scope.workflowId) ? (workflows[scope.workflowId] ?? 0) : 0;
    }
    case 'agents':
      return baseline.revisions.agents;
    case 'assets':
      return baseline.revisions.assets;
    case undefined:
      return 0;
    default: {
      const never: never = scope;
      throw new Error(`unknown scope ${String(never)}`);
    }
  }
}

/**
 * sha256 of the overlay as canonical JSON: `[[key, deleted, content], …]` sorted by key, one entry
 * per key, a deletion's content counted as ''. Equal overlays hash equal whatever their order.
 */
export async function overlayHash(entries: Iterable<OverlayEntry>): Promise<string> {
  const canonical = latestByKey(entries).map((e) => [e.key, e.deleted, e.deleted ? '' : e.content]);
  return sha256Hex(JSON.stringify(canonical));
}
