/**
 * One workflow open in the Builder: its stored files (workflow.md, graph, steps) under one
 * workflow revision, their client-side validation, and the writes that move the revision on.
 * The workflow page creates one and hands it to the graph, the step inspector and the file
 * editors, so a save in one of them is the base revision of the next save in any other.
 */
import { SvelteMap } from 'svelte/reactivity';
import type { StepView, WorkflowView } from '../../shared/api/index.ts';
import type { ErrorBody } from '../../shared/errors.ts';
import type { GraphNode, ValidationReport } from '../../shared/bmad/index.ts';
import { api as browserApi, type Api, type ApiResult, type SaveResult } from './api.ts';
import { saveOutcome, type SaveOutcome } from './save-tracker.svelte.ts';
import type { GraphChange } from './graph-change.ts';
import { issuesByNode, readGraphLoosely, stepForNode, type IssueCounts, type LooseGraph, type LooseNode } from './workflow-model.ts';
import type { WorkflowChecks } from './workflow-checks.ts';

/** The validators and YAML, loaded once for every workflow page (a module is fetched only once). */
let checksLoading: Promise<WorkflowChecks> | undefined;
export function loadWorkflowChecks(): Promise<WorkflowChecks> {
  checksLoading ??= import('./workflow-checks.ts');
  return checksLoading;
}

/** What a save came to; a stale base revision is its own case so editors can keep the text. */

export type WorkflowFile = 'workflow-md' | 'graph';

/** Unsaved text is kept per file: `step:<nodeId>`, `workflow-md` or `graph`. */
export type DraftKey = `step:${string}` | WorkflowFile;

/** Where this workflow's files sit: the multi-workflow layout, or the root of a single-workflow package. */
export function workflowFilePathsFor(workflow: Pick<WorkflowView, 'id' | 'steps'>): { workflowMd: string; graph: string } {
  const prefix = `workflows/${workflow.id}/`;
  const atRoot = workflow.steps.length > 0 && workflow.steps.every((s) => !s.path.startsWith('workflows/'));
  return atRoot
    ? { workflowMd: 'workflow.md', graph: 'workflow.graph.json' }
    : { workflowMd: `${prefix}workflow.md`, graph: `${prefix}workflow.graph.json` };
}

function toGraphNode(node: LooseNode): GraphNode | undefined {
  if (node.type === 'unknown') return undefined;
  return {
    id: node.id,
    type: node.type,
    file: node.file,
    ...(node.title ? { title: node.title } : {}),
    ...(node.agentId ? { agentId: node.agentId } : {}),
  };
}

export interface WorkflowContext {
  agentIds?: readonly string[] | undefined;
  assetPaths?: readonly string[] | undefined;
}

export class WorkflowDoc {
  readonly #api: Pick<Api, 'workflows'>;
  readonly #projectId: string;
  #workflow: WorkflowView;
  /** Undefined when the project's agents (or assets) could not be loaded: those references go unchecked. */
  #agentIds = $state.raw<readonly string[] | undefined>();
  #assetPaths = $state.raw<readonly string[] | undefined>();
  /** Unsaved edits, so switching nodes or tabs (or a reload after a conflict) never loses text. */
  readonly #drafts = new SvelteMap<DraftKey, string>();
  /** The validators and frontmatter parser; undefined until their chunk arrives ("checking…"). */
  #checks = $state.raw<WorkflowChecks | undefined>();

  // Derived from the fields above; assigned in the constructor, after `#workflow` exists.
  readonly paths: { workflowMd: string; graph: string };
  /** What can be drawn of the graph, even when it breaks the schema; null when it is not JSON. */
  readonly graph: LooseGraph | null;
  /** Null while the validators load (`checking`). */
  readonly graphReport: ValidationReport | null;
  readonly workflowMdReport: ValidationReport | null;
  /** Each node's stored step file through `validateStepFile`, keyed by node id; empty while checking. */
  readonly stepReports: ReadonlyMap<string, ValidationReport>;
  /** Step-file issues plus the graph issues that point at a node, keyed by node id. */
  readonly nodeIssues: ReadonlyMap<string, IssueCounts>;

  constructor(projectId: string, workflow: WorkflowView, context: WorkflowContext = {}, api: Pick<Api, 'workflows'> = browserApi) {
    this.#api = api;
    this.#projectId = projectId;
    this.#workflow = $state.raw(workflow);
    this.setContext(context);
    void loadWorkflowChecks().then((checks) => (this.#checks = checks));
    this.paths = $derived(workflowFilePathsFor(this.#workflow));
    this.graph = $derived(readGraphLoosely(this.#workflow.graphJson));
    this.graphReport = $derived(this.validateGraphText(this.#workflow.graphJson));
    this.workflowMdReport = $derived(this.validateWorkflowMd(this.#workflow.workflowMd));
    this.stepReports = $derived(this.#computeStepReports());
    this.nodeIssues = $derived(
      this.graph && this.graphReport
        ? issuesByNode(this.graph, this.graphReport.issues, new Map([...this.stepReports].map(([id, r]) => [id, r.issues])))
        : new Map(),
    );
  }

  get projectId(): string {
    return this.#projectId;
  }

  get workflow(): WorkflowView {
    return this.#workflow;
  }

  get revision(): number {
    return this.#workflow.revision;
  }

  /** The validators and frontmatter parser once loaded; the page shows "checking…" until then. */
  get checks(): WorkflowChecks | undefined {
    return this.#checks;
  }

  /** The project's agents and assets, which step and graph validation check references against. */
  setContext(context: WorkflowContext): void {
    this.#agentIds = context.agentIds;
    this.#assetPaths = context.assetPaths;
  }

  /** The unsaved text of a file, if it has any. */
  draftOf(key: DraftKey): string | undefined {
    return this.#drafts.get(key);
  }

  /** Records an edit; text equal to the stored file is no edit at all. */
  setDraft(key: DraftKey, text: string, stored: string): void {
    if (text === stored) this.#drafts.delete(key);
    else this.#drafts.set(key, text);
  }

  get hasDrafts(): boolean {
    return this.#drafts.size > 0;
  }

  /** Keys with unsaved text (e.g. to mark nodes with unsaved edits). */
  get draftKeys(): DraftKey[] {
    return [...this.#drafts.keys()];
  }

  #clearDraftIf(key: DraftKey, saved: string): void {
    if (this.#drafts.get(key) === saved) this.#drafts.delete(key);
  }

  /** A newer copy of the workflow from the server (after a reload or a page load). */
  replace(workflow: WorkflowView): void {
    this.#workflow = workflow;
  }

  node(nodeId: string): LooseNode | undefined {
    return this.graph?.nodes.find((n) => n.id === nodeId);
  }

  stepOf(node: LooseNode): StepView | undefined {
    return stepForNode(this.#workflow.steps, node);
  }

  successorsOf(nodeId: string): string[] {
    return (this.graph?.edges ?? []).filter((e) => e.from === nodeId).map((e) => e.to);
  }

  /** Live validation of a step file being edited, with everything the workflow knows about it. */
  validateStep(markdown: string, node: LooseNode, filePath: string): ValidationReport | null {
    if (!this.#checks) return null;
    const graphNode = toGraphNode(node);
    return this.#checks.validateStepFile(markdown, {
      filePath,
      nodeId: node.id,
      ...(graphNode ? { node: graphNode } : {}),
      successors: this.successorsOf(node.id),
      ...(this.#agentIds ? { agentIds: this.#agentIds } : {}),
      ...(this.#assetPaths ? { assetPaths: this.#assetPaths } : {}),
    });
  }

  validateGraphText(json: string): ValidationReport | null {
    if (!this.#checks) return null;
    return this.#checks.validateGraph(json, {
      filePath: this.paths.graph,
      ...(this.#agentIds ? { agentIds: this.#agentIds } : {}),
      stepPaths: this.#workflow.steps.map((s) => s.path),
      workflowMdPath: this.paths.workflowMd,
    });
  }

  validateWorkflowMd(markdown: string): ValidationReport | null {
    if (!this.#checks) return null;
    return this.#checks.validateWorkflowMd(markdown, {
      filePath: this.paths.workflowMd,
      nodeIds: (this.graph?.nodes ?? []).map((n) => n.id),
      packagePaths: [
        this.paths.workflowMd,
        this.paths.graph,
        ...this.#workflow.steps.map((s) => s.path),
        ...(this.#assetPaths ?? []),
      ],
    });
  }

  #computeStepReports(): Map<string, ValidationReport> {
    const reports = new Map<string, ValidationReport>();
    for (const node of this.graph?.nodes ?? []) {
      const step = this.stepOf(node);
      const report = step ? this.validateStep(step.markdown, node, step.path) : null;
      if (report) reports.set(node.id, report);
    }
    return reports;
  }

  // -------------------------------------------------------------------------------------------
  // Writes: each names the revision this page last saw, and moves it on when it succeeds.

  async saveStep(nodeId: string, markdown: string, path: string): Promise<SaveOutcome> {
    const result = await this.#api.workflows.putStep(this.#projectId, this.#workflow.id, nodeId, {
      markdown,
      path,
      baseRevision: this.#workflow.revision,
    });
    return this.#settle(result, (revision) => {
      const steps = this.#workflow.steps.filter((s) => s.nodeId !== nodeId);
      steps.push({ nodeId, path, markdown });
      steps.sort((a, b) => a.path.localeCompare(b.path));
      this.#workflow = { ...this.#workflow, revision, steps, stepCount: steps.length };
      this.#clearDraftIf(`step:${nodeId}`, markdown);
    });
  }

  async saveFile(file: WorkflowFile, content: string): Promise<SaveOutcome> {
    const input = { content, baseRevision: this.#workflow.revision };
    const result =
      file === 'graph'
        ? await this.#api.workflows.putGraph(this.#projectId, this.#workflow.id, input)
        : await this.#api.workflows.putWorkflowMd(this.#projectId, this.#workflow.id, input);
    return this.#settle(result, (revision) => {
      this.#workflow =
        file === 'graph' ? { ...this.#workflow, revision, graphJson: content } : { ...this.#workflow, revision, workflowMd: content };
      this.#clearDraftIf(file, content);
    });
  }

  /** A canvas edit: the new graph with the step files it creates, deletes and rewrites, as one revision. */
  async applyGraphChange(change: GraphChange): Promise<SaveOutcome> {
    const result = await this.#api.workflows.editGraph(this.#projectId, this.#workflow.id, {
      graph: change.after,
      createSteps: change.createSteps.map((s) => ({ nodeId: s.nodeId, markdown: s.markdown })),
      updateSteps: change.updateSteps.map((s) => ({ nodeId: s.nodeId, markdown: s.after })),
      deleteSteps: change.deleteSteps.map((s) => s.nodeId),
      baseRevision: this.#workflow.revision,
    });
    return this.#settle(result, (revision) => {
      const gone = new Set(change.deleteSteps.map((s) => s.nodeId));
      const rewritten = new Map(change.updateSteps.map((s) => [s.nodeId, s.after]));
      const kept = this.#workflow.steps.filter((s) => !gone.has(s.nodeId)).map((s) => ({ ...s, markdown: rewritten.get(s.nodeId) ?? s.markdown }));
      const steps = [...kept, ...change.createSteps];
      steps.sort((a, b) => a.path.localeCompare(b.path));
      this.#workflow = { ...this.#workflow, revision, graphJson: change.after, steps, stepCount: steps.length };
    });
  }

  async rename(name: string): Promise<{ ok: true } | { ok: false; error: ErrorBody }> {
    const result = await this.#api.workflows.update(this.#projectId, this.#workflow.id, { name });
    if (!result.ok) return result;
    this.#workflow = result.data.workflow;
    return { ok: true };
  }

  async makeDefault(): Promise<{ ok: true } | { ok: false; error: ErrorBody }> {
    const result = await this.#api.workflows.update(this.#projectId, this.#workflow.id, { isDefault: true });
    if (!result.ok) return result;
    this.#workflow = result.data.workflow;
    return { ok: true };
  }

  async remove(): Promise<{ ok: true } | { ok: false; error: ErrorBody }> {
    const result = await this.#api.workflows.remove(this.#projectId, this.#workflow.id);
    return result.ok ? { ok: true } : result;
  }

  /** Fetches the stored workflow again (after a conflict); editors keep their unsaved text. */
  async reload(): Promise<{ ok: true } | { ok: false; error: ErrorBody }> {
    const result = await this.#api.workflows.get(this.#projectId, this.#workflow.id);
    if (!result.ok) return result;
    this.#workflow = result.data.workflow;
    return { ok: true };
  }

  #settle(result: ApiResult<SaveResult>, apply: (revision: number) => void): SaveOutcome {
    const outcome = saveOutcome(result);
    if (outcome.type === 'saved') apply(outcome.revision);
    return outcome;
  }
}
