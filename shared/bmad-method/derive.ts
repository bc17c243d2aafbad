/**
 * BMAD-METHOD layout → `.bmad` v1.1 package (README.md beside this file has the rules): each
 * `workflow.md` / `workflow-*.md` with a `name` is a workflow, the `step-*.md` files under its
 * folder are its steps, their links are the graph, everything else is an asset, `*.agent.yaml`
 * files are the agents. Pure: a file map in, the package, what became what and every warning out.
 */
import { ASSET_EXTENSIONS } from '../bmad/limits.ts';
import { ID_PATTERN } from '../bmad/formats.ts';
import { errorIssue, warningIssue, type ValidationIssue } from '../bmad/issues.ts';
import type { GraphEdge, GraphNode, WorkflowGraph } from '../bmad/models.ts';
import type { BmadPackage } from '../bmad/package.ts';
import { addGeneratedFields, setAsideDuplicateKeys } from './generated.ts';
import { agentFromYaml, isAgentFile, placeholderAgent } from './agents.ts';
import { readStepText, stepLinks, type StepText } from './links.ts';
import { layeredPositions } from './positions.ts';
import { resolveTarget } from './resolve.ts';

/** More step files than this in one folder is refused: no honest workflow has them. */
export const MAX_BMAD_STEPS_PER_FOLDER = 500;

export interface OriginWorkflow {
  id: string;
  /** Folder of the workflow in the BMAD layout ('' = the zip root). */
  dir: string;
  /** Name of its main file, e.g. `workflow.md` or `workflow-create-prd.md`. */
  file: string;
}

/** Stored with the project (bmad.json as imported, key `bmadMethod`): how to export back. */
export interface BmadMethodOrigin {
  layout: 'bmad-method';
  workflows: OriginWorkflow[];
}

export interface DerivedWorkflowSummary {
  id: string;
  name: string;
  source: string;
  graph: WorkflowGraph;
  steps: Array<{ file: string; source: string; nodeId: string }>;
}

export interface BmadMethodImport {
  pkg: BmadPackage;
  origin: BmadMethodOrigin;
  workflows: DerivedWorkflowSummary[];
  assets: Array<{ path: string; source: string }>;
  agents: Array<{ id: string; name: string; source: string | null }>;
  issues: ValidationIssue[];
}

const WORKFLOW_FILE = /^workflow(-[A-Za-z0-9._-]+)?\.md$/u;
const STEP_FILE = /^step[A-Za-z0-9._-]*\.md$/u;
const CONTINUATION_FILE = /-continue\.md$/u;

const dirOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/') + 1) : '');
const baseOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);

function toId(raw: string, taken: Set<string>): string {
  let base = raw.replace(/[^A-Za-z0-9._:-]+/gu, '-').replace(/^[^A-Za-z0-9]+/u, '') || 'workflow';
  if (!ID_PATTERN.test(base)) base = 'workflow';
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

interface Candidate {
  path: string;
  dir: string;
  name: string;
  description?: string;
  text: StepText;
}

export function isBmadMethodLayout(files: ReadonlyMap<string, string>): boolean {
  return !files.has('bmad.json') && findWorkflowFiles(files).length > 0;
}

function findWorkflowFiles(files: ReadonlyMap<string, string>): Candidate[] {
  const found: Candidate[] = [];
  for (const [path, content] of files) {
    if (!WORKFLOW_FILE.test(baseOf(path))) continue;
    const text = readStepText(content);
    const name = text.frontmatter.name;
    if (typeof name !== 'string' || !name.trim()) continue;
    const description = typeof text.frontmatter.description === 'string' ? text.frontmatter.description : undefined;
    found.push({ path, dir: dirOf(path), name: name.trim(), ...(description ? { description } : {}), text });
  }
  // workflow.md before workflow-*.md in one folder; folders in path order.
  return found.sort((a, b) => a.dir.localeCompare(b.dir) || Number(baseOf(b.path) === 'workflow.md') - Number(baseOf(a.path) === 'workflow.md') || a.path.localeCompare(b.path));
}

export function deriveBmadMethod(files: ReadonlyMap<string, string>, skipped: readonly string[] = []): BmadMethodImport {
  const issues: ValidationIssue[] = skipped.map((path) =>
    warningIssue('BMAD_FILE_SKIPPED', path, `${path} is not UTF-8 text (a binary file?); it was left out.`, { hint: 'Packages hold text files only.' }),
  );
  const candidates = findWorkflowFiles(files);
  const dirs = [...new Set(candidates.map((c) => c.dir))];
  const deepestDir = (path: string) => dirs.filter((d) => path.startsWith(d)).sort((a, b) => b.length - a.length)[0];
  const used = new Set<string>(candidates.map((c) => c.path));
  const workflowIds = new Set<string>();
  const origin: BmadMethodOrigin = { layout: 'bmad-method', workflows: [] };
  const summaries: DerivedWorkflowSummary[] = [];
  const pkg: BmadPackage = { manifestJson: null, agentsJson: null, workflows: [], assets: [] };

  for (const dir of dirs) {
    const stepPaths = [...files.keys()].filter((p) => STEP_FILE.test(baseOf(p)) && deepestDir(p) === dir && !used.has(p)).sort();
    const inDir = candidates.filter((c) => c.dir === dir);
    if (stepPaths.length > MAX_BMAD_STEPS_PER_FOLDER) {
      issues.push(
        errorIssue('BMAD_TOO_MANY_STEPS', dir || '/', `The folder ${dir || '(root)'} has ${stepPaths.length} step files; at most ${MAX_BMAD_STEPS_PER_FOLDER} can be imported.`, {
          hint: 'Split the workflow, or import a folder that holds one workflow.',
        }),
      );
      for (const c of inDir) used.add(c.path);
      for (const p of stepPaths) used.add(p);
      continue;
    }
    const texts = new Map(
      stepPaths.map((p) => {
        const { text, duplicates } = setAsideDuplicateKeys(files.get(p)!);
        for (const d of duplicates) {
          issues.push(
            warningIssue('BMAD_FRONTMATTER_DUPLICATE_KEY', p, `The frontmatter names "${d.key}" more than once (line ${d.line}); the last one counts, and the earlier line is kept as a comment until export.`, {
              hint: 'Delete one of the two lines.',
            }),
          );
        }
        return [p, readStepText(text)];
      }),
    );
    const stepSet = new Set(stepPaths);
    // Edges by step path, resolved once for the folder.
    const edgesOf = new Map<string, Array<{ to: string; label: string; key?: string; line: number }>>();
    for (const path of stepPaths) {
      const text = texts.get(path)!;
      if (!text.frontmatterOk) {
        issues.push(warningIssue('BMAD_FRONTMATTER_INVALID', path, `The frontmatter of ${path} is not valid YAML; its frontmatter links were not read.`));
      }
      const out: Array<{ to: string; label: string; key?: string; line: number }> = [];
      for (const link of stepLinks(text)) {
        const resolved = resolveTarget(path, link.target, files, stepSet);
        if (resolved.kind === 'file') {
          if (!stepSet.has(resolved.path)) continue; // a template or data file, not a step
          if (resolved.path === path || out.some((e) => e.to === resolved.path)) continue;
          out.push({ to: resolved.path, label: link.label, line: link.line, ...(link.key ? { key: link.key } : {}) });
        } else if (resolved.kind === 'outside') {
          issues.push(warningIssue('BMAD_LINK_OUTSIDE', path, `Line ${link.line} links "${link.target}", which leaves the uploaded folder; the link was ignored.`));
        } else if (resolved.kind === 'missing' && (STEP_FILE.test(baseOf(link.target)) || /step/iu.test(link.key ?? ''))) {
          issues.push(
            warningIssue('BMAD_LINK_MISSING', path, `Line ${link.line} links "${link.target}", but there is no such step file; the link was ignored.`, {
              hint: 'Add the missing step file, or fix the link.',
            }),
          );
        }
      }
      edgesOf.set(path, out);
    }
    const claimed = new Map<string, string>();
    for (const candidate of inDir) {
      used.add(candidate.path);
      const id = toId(baseOf(candidate.path) === 'workflow.md' ? baseOf(dir.replace(/\/$/u, '')) || candidate.name : baseOf(candidate.path).replace(/^workflow-|\.md$/gu, ''), workflowIds);
      let entry: string | undefined;
      for (const link of stepLinks(candidate.text)) {
        const resolved = resolveTarget(candidate.path, link.target, files, stepSet);
        if (resolved.kind === 'file' && stepSet.has(resolved.path) && !claimed.has(resolved.path)) {
          entry = resolved.path;
          break;
        }
      }
      if (!entry) {
        entry = stepPaths.find((p) => !claimed.has(p));
        if (entry) {
          issues.push(warningIssue('BMAD_ENTRY_GUESSED', candidate.path, `${candidate.path} names no step file to start with; the workflow starts at ${entry}.`, { params: { path: candidate.path, entry } }));
        }
      }
      if (!entry) {
        issues.push(errorIssue('BMAD_NO_STEPS', candidate.path, `Workflow "${candidate.name}" has no step files to import.`, { params: { name: candidate.name }, hint: 'Its step-*.md files belong beside it, e.g. in steps/.' }));
        continue;
      }
      // The workflow is what its entry reaches.
      const order: string[] = [];
      const queue = [entry];
      while (queue.length > 0) {
        const next = queue.shift()!;
        if (claimed.has(next) || order.includes(next)) continue;
        order.push(next);
        for (const e of edgesOf.get(next) ?? []) queue.push(e.to);
      }
      for (const p of order) claimed.set(p, id);
      summaries.push(buildWorkflow(id, candidate, dir, entry, order, texts, edgesOf, claimed, pkg, issues));
      origin.workflows.push({ id, dir, file: baseOf(candidate.path) });
    }
    for (const path of stepPaths) {
      if (claimed.has(path)) {
        used.add(path);
        continue;
      }
      issues.push(
        warningIssue('BMAD_STEP_ORPHAN', path, `No workflow or step links ${path}, so it is not a step of the graph; it is kept as a file.`, {
          params: { path },
          hint: 'Link it from another step ("load `./…`") and import again to make it a step.',
        }),
      );
    }
  }

  // Agents, then every other file as an asset.
  const agentIds = new Set<string>();
  const agents: Array<Record<string, unknown>> = [];
  const agentSummaries: BmadMethodImport['agents'] = [];
  for (const [path, content] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    if (!isAgentFile(path)) continue;
    const { agent, issues: found } = agentFromYaml(path, content, agentIds);
    agents.push(agent);
    issues.push(...found);
    agentSummaries.push({ id: agent.id as string, name: (agent.metadata as { name: string }).name, source: path });
  }
  if (agents.length === 0) {
    const agent = placeholderAgent();
    agents.push(agent);
    agentSummaries.push({ id: agent.id as string, name: 'BMAD agent', source: null });
    issues.push(
      warningIssue('BMAD_AGENT_PLACEHOLDER', 'agents.json', 'The upload has no *.agent.yaml file, so a placeholder agent was written.', {
        hint: 'Describe the agent in the agent editor, or import the module with its agents/ folder.',
      }),
    );
  }
  pkg.agentsJson = `${JSON.stringify({ schemaVersion: '1.1', agents }, null, 2)}\n`;
  const assets: BmadMethodImport['assets'] = [];
  for (const [path, content] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    if (used.has(path)) continue;
    const extension = baseOf(path).includes('.') ? baseOf(path).slice(baseOf(path).lastIndexOf('.')) : '';
    // A name outside the ASCII path characters is kept: the import renames it (ascii-assets.ts).
    if (!(ASSET_EXTENSIONS as readonly string[]).includes(extension)) {
      issues.push(
        warningIssue('BMAD_FILE_SKIPPED', path, `${path} was left out: packages keep only ${ASSET_EXTENSIONS.join(' ')} files.`),
      );
      continue;
    }
    const stored = `assets/${path}`;
    pkg.assets.push({ path: stored, content });
    assets.push({ path: stored, source: path });
  }
  const main = pkg.workflows[0];
  const moduleName = summaries.length === 1 ? summaries[0]!.id : 'bmad-module';
  const manifest = {
    schemaVersion: '1.1',
    name: moduleName,
    version: '1.0.0',
    ...(summaries.length === 1 && candidates[0]?.description ? { description: candidates[0].description } : {}),
    entry: {
      workflow: main?.workflowMdPath ?? 'workflows/main/workflow.md',
      graph: main?.graphPath ?? 'workflows/main/workflow.graph.json',
      agents: 'agents.json',
      assetsDir: 'assets/',
    },
    workflows: pkg.workflows.map((w) => ({ id: w.id, displayName: w.displayName ?? w.id, ...(w.description ? { description: w.description } : {}), workflow: w.workflowMdPath, graph: w.graphPath })),
  };
  pkg.manifestJson = `${JSON.stringify(manifest, null, 2)}\n`;
  if (main) pkg.defaultWorkflowId = main.id;
  return { pkg, origin, workflows: summaries, assets, agents: agentSummaries, issues };
}

function buildWorkflow(
  id: string,
  candidate: Candidate,
  dir: string,
  entry: string,
  order: string[],
  texts: ReadonlyMap<string, StepText>,
  edgesOf: ReadonlyMap<string, Array<{ to: string; label: string; key?: string; line: number }>>,
  claimed: ReadonlyMap<string, string>,
  pkg: BmadPackage,
  issues: ValidationIssue[],
): DerivedWorkflowSummary {
  const nodeIds = new Map<string, string>();
  const taken = new Set<string>();
  for (const path of order) nodeIds.set(path, toId(baseOf(path).replace(/\.md$/u, ''), taken));
  const stored = (path: string) => `workflows/${id}/${path.slice(dir.length)}`;
  const edges: GraphEdge[] = [];
  const nodes: GraphNode[] = [];
  for (const path of [...order].sort()) {
    const from = nodeIds.get(path)!;
    const out = (edgesOf.get(path) ?? []).filter((e) => {
      if (claimed.get(e.to) !== id) {
        issues.push(warningIssue('BMAD_LINK_OTHER_WORKFLOW', path, `${path} links ${e.to}, a step of another workflow in the same folder; the link was ignored.`));
        return false;
      }
      // "[Back] - return to step-01" is common in real BMAD steps, but a .bmad graph's entry is its
      // only node without incoming edges (the start rule), so the return stays in the text only.
      if (e.to === entry) {
        issues.push(
          warningIssue('BMAD_LINK_TO_ENTRY', path, `Line ${e.line} links back to the entry step ${nodeIds.get(entry)!} (${e.label}); a graph cannot lead into its entry, so the link stays in the step text but is not an edge.`, {
            hint: 'The model still follows the text; to draw the loop, point it at a step after the entry.',
          }),
        );
        return false;
      }
      return true;
    });
    // The default is the ordinary way on: nextStepFile, else [C], else the first link that is not
    // the hand-over to a continuation file (`step-01b-continue.md` runs only when resuming).
    const preferred =
      out.find((e) => e.key === 'nextStepFile') ?? out.find((e) => e.label.startsWith('[C]')) ?? out.find((e) => !CONTINUATION_FILE.test(baseOf(e.to))) ?? out[0];
    for (const e of out) {
      edges.push({ id: `${from}->${nodeIds.get(e.to)!}`, from, to: nodeIds.get(e.to)!, label: e.label, ...(out.length > 1 && e === preferred ? { isDefault: true } : {}) });
    }
    const type = out.length === 0 ? 'end' : out.length > 1 ? 'decision' : 'step';
    const text = texts.get(path)!;
    nodes.push({ id: from, type, file: stored(path), ...(text.title ? { title: text.title } : {}) });
  }
  const entryId = nodeIds.get(entry)!;
  const graph: WorkflowGraph = {
    schemaVersion: '1.1',
    entryNodeId: entryId,
    nodes,
    edges,
    metadata: { source: 'bmad-method', layout: { positions: layeredPositions(entryId, nodes.map((n) => n.id), edges) } },
  };
  const steps = nodes.map((node) => {
    const source = order.find((p) => nodeIds.get(p) === node.id)!;
    return { path: node.file, nodeId: node.id, source };
  });
  pkg.workflows.push({
    id,
    displayName: candidate.name,
    ...(candidate.description ? { description: candidate.description } : {}),
    workflowMdPath: `workflows/${id}/workflow.md`,
    graphPath: `workflows/${id}/workflow.graph.json`,
    workflowMd: addGeneratedFields(candidateText(candidate), { schemaVersion: '1.1', workflowType: candidate.name, currentNodeId: '', stepsCompleted: [] }),
    graphJson: `${JSON.stringify(graph, null, 2)}\n`,
    steps: steps.map((s) => ({
      nodeId: s.nodeId,
      path: s.path,
      markdown: addGeneratedFields(texts.get(s.source)!.raw, {
        schemaVersion: '1.1',
        nodeId: s.nodeId,
        type: nodes.find((n) => n.id === s.nodeId)!.type,
        origin: 'bmad-method',
      }),
    })),
  });
  return { id, name: candidate.name, source: candidate.path, graph, steps: steps.map((s) => ({ file: s.path, source: s.source, nodeId: s.nodeId })) };
}

function candidateText(candidate: Candidate): string {
  return candidate.text.raw;
}
