/**
 * BMAD-METHOD layout → `.bmad` v1.1 package (README.md beside this file has the rules): each
 * workflow file (workflow-files.ts) is a workflow, the step files under its folder that it reaches
 * are its steps (or the `<step>` blocks its text holds inline), their links are the graph,
 * everything else is an asset, `*.agent.yaml` and compiled agent `.md` files are the agents. Pure:
 * a file map in, the package, what became what and every warning out.
 */
import { ASSET_EXTENSIONS } from '../bmad/limits.ts';
import { errorIssue, warningIssue, type ValidationIssue } from '../bmad/issues.ts';
import type { BmadPackage } from '../bmad/package.ts';
import { BmadMethodOriginRecord } from '../bmad/models.ts';
import { agentFromYaml, isAgentFile, placeholderAgent } from './agents.ts';
import { agentFromCompiledMd, isCompiledAgentFile } from './agents-md.ts';
import { buildWorkflow, type DerivedWorkflowSummary, type SourceEdge } from './build-graph.ts';
import { withMarkers } from './inline-steps.ts';
import type { ResolveContext } from './resolve.ts';
import { fileSources, inlineSources, isStepFile, linkEdges, readSteps, routerSource, toId, workflowLinks } from './step-sources.ts';
import { baseOf, findWorkflowFiles, isMainWorkflowFile, type Candidate } from './workflow-files.ts';

export type { DerivedWorkflowSummary } from './build-graph.ts';

/** More step files than this in one folder is refused: no honest workflow has them. */
export const MAX_BMAD_STEPS_PER_FOLDER = 500;

/**
 * Stored with the project (beside its stored manifest, key `bmadMethod`; a `.bmad` export carries it
 * in its project file, shared/bmad/project-file.ts, and its import reads it back): how to export back. Its model, with the path rules that keep an export
 * inside its zip, is `BmadMethodOriginRecord` in shared/bmad/models.ts. Per workflow: its folder in
 * the BMAD layout (`dir`, '' = the zip root), its main file (`workflow.md`, `workflow-create-prd.md`,
 * or `instructions.md` of a legacy workflow.yaml), and the step files stored under an ASCII name
 * (`renamed`: package path in the workflow folder → path in the BMAD folder); `assets`: assets
 * stored under an ASCII name (package path → path in the BMAD layout).
 */
export type BmadMethodOrigin = BmadMethodOriginRecord;
export type OriginWorkflow = BmadMethodOrigin['workflows'][number];

/** The origin record of a stored manifest (`bmadMethod`), when it has a valid one. */
export function originFromManifest(manifestJson: string | null): BmadMethodOrigin | null {
  try {
    const manifest = JSON.parse(manifestJson ?? '') as { bmadMethod?: unknown } | null;
    const parsed = BmadMethodOriginRecord.safeParse(manifest?.bmadMethod);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export interface BmadMethodImport {
  pkg: BmadPackage;
  origin: BmadMethodOrigin;
  workflows: DerivedWorkflowSummary[];
  assets: Array<{ path: string; source: string }>;
  agents: Array<{ id: string; name: string; source: string | null }>;
  issues: ValidationIssue[];
}

export function isBmadMethodLayout(files: ReadonlyMap<string, string>): boolean {
  if (files.has('bmad.json')) return false;
  const found = findWorkflowFiles(files);
  // A legacy workflow.yaml without its instructions is still this layout: the import says what is missing.
  return found.candidates.length > 0 || found.issues.some((i) => i.severity === 'error');
}

function workflowId(candidate: Candidate, taken: Set<string>): string {
  const base = baseOf(candidate.path);
  const own = isMainWorkflowFile(base) || candidate.legacy !== undefined;
  return toId(own ? baseOf(candidate.dir.replace(/\/$/u, '')) || candidate.name : base.replace(/^workflow-|\.md$/giu, ''), taken);
}

/** Every source the entry reaches, entry first, in the order met. */
function reach(entry: string, edgesOf: ReadonlyMap<string, readonly SourceEdge[]>): string[] {
  const order: string[] = [];
  const queue = [entry];
  while (queue.length > 0) {
    const next = queue.shift()!;
    if (order.includes(next)) continue;
    order.push(next);
    for (const e of edgesOf.get(next) ?? []) queue.push(e.to);
  }
  return order;
}

const folderOf = (path: string) => path.slice(0, path.lastIndexOf('/') + 1);

/**
 * The first step as authors mean it: workflow.md often names only the step the conversation runs
 * in (party-mode names step-02), while step-01, which nothing the workflow reaches links to, links
 * straight to it. A step file of the entry's folder that the entry does not reach, that no workflow
 * file names and no earlier workflow took, and that links directly to the entry becomes the entry;
 * repeated, so a chain of such steps starts at its first. Only when there is one such step: two
 * would leave the first unclear.
 */
function earliestEntry(
  entry: string,
  stepPaths: readonly string[],
  edgesOf: ReadonlyMap<string, readonly SourceEdge[]>,
  named: ReadonlySet<string>,
  reached: ReadonlySet<string>,
): string {
  for (;;) {
    const inGraph = new Set(reach(entry, edgesOf));
    const before = stepPaths.filter(
      (p) =>
        !inGraph.has(p) &&
        folderOf(p) === folderOf(entry) &&
        !named.has(p) &&
        !reached.has(p) &&
        (edgesOf.get(p) ?? []).some((e) => e.to === entry),
    );
    if (before.length !== 1) return entry;
    entry = before[0]!;
  }
}

export function deriveBmadMethod(files: ReadonlyMap<string, string>, skipped: readonly string[] = []): BmadMethodImport {
  const issues: ValidationIssue[] = skipped.map((path) =>
    warningIssue('BMAD_FILE_SKIPPED', path, `${path} is not UTF-8 text (a binary file?); it was left out.`, { hint: 'Packages hold text files only.' }),
  );
  const found = findWorkflowFiles(files);
  issues.push(...found.issues);
  const candidates = found.candidates;
  const dirs = [...new Set(candidates.map((c) => c.dir))];
  const deepestDir = (path: string) => dirs.filter((d) => path.startsWith(d)).sort((a, b) => b.length - a.length)[0];
  const used = new Set<string>(candidates.map((c) => c.path));
  const workflowIds = new Set<string>();
  const origin: BmadMethodOrigin = { layout: 'bmad-method', workflows: [] };
  const summaries: DerivedWorkflowSummary[] = [];
  const pkg: BmadPackage = { manifestJson: null, agentsJson: null, workflows: [], assets: [] };

  for (const dir of dirs) {
    const stepPaths = [...files.keys()].filter((p) => isStepFile(p) && deepestDir(p) === dir && !used.has(p)).sort();
    const inDir = candidates.filter((c) => c.dir === dir);
    if (stepPaths.length > MAX_BMAD_STEPS_PER_FOLDER) {
      issues.push(
        errorIssue('BMAD_TOO_MANY_STEPS', dir || '/', `The folder ${dir || '(root)'} has ${stepPaths.length} step files; at most ${MAX_BMAD_STEPS_PER_FOLDER} can be imported.`, {
          hint: 'Split the workflow, or import a folder that holds one workflow.',
        }),
      );
      for (const p of stepPaths) used.add(p);
      continue;
    }
    const texts = readSteps(stepPaths, files, issues);
    // Variables of the folder's workflow files, for `{workflow_path}` and the like in step links.
    const vars = Object.assign({}, ...[...inDir].reverse().map((c) => c.vars)) as Record<string, unknown>;
    const ctx: ResolveContext = { files, steps: new Set(stepPaths), vars, workflowDir: dir, workflowDirs: dirs };
    const edgesOf = linkEdges(texts, ctx, issues);
    const linksOf = new Map(inDir.map((c) => [c, workflowLinks(c, ctx)]));
    // Steps some workflow file of the folder names: a guessed entry is none of these.
    const named = new Set([...linksOf.values()].flatMap((links) => links.map((l) => l.to)));
    const reached = new Set<string>();
    for (const candidate of inDir) {
      const id = workflowId(candidate, workflowIds);
      const links = linksOf.get(candidate)!;
      let entry = links[0]?.to;
      let built: Parameters<typeof buildWorkflow>[0] | null = null;
      const renamed: Record<string, string> = {};
      if (!entry && stepPaths.length > 0 && !/<step\b[^>]*>/u.test(candidate.text.body)) {
        entry = stepPaths.find((p) => !named.has(p) && !reached.has(p)) ?? stepPaths[0]!;
        issues.push(warningIssue('BMAD_ENTRY_GUESSED', candidate.path, `${candidate.path} names no step file to start with; the workflow starts at ${entry}.`, { params: { path: candidate.path, entry } }));
      }
      const routes = links.filter((l) => l.route);
      if (entry && routes.length > 1) {
        // A router (`IF Create Mode:` … `IF Edit Mode:` …): an entry decision with one edge per route.
        const order = [...new Set(routes.flatMap((r) => reach(r.to, edgesOf)))];
        for (const p of order) reached.add(p);
        const stepFiles = fileSources(id, dir, order, texts, issues);
        Object.assign(renamed, stepFiles.renamed);
        const nodeOf = new Map(stepFiles.sources.map((s) => [s.key, s.nodeId]));
        const router = routerSource(id, candidate, routes.map((r) => ({ label: r.label, nodeId: nodeOf.get(r.to)! })), new Set(nodeOf.values()));
        const withRoutes = new Map(edgesOf);
        withRoutes.set(router.key, routes.map((r) => ({ to: r.to, label: r.label, line: r.line, ...(r === routes[0] ? { key: 'nextStepFile' } : {}) })));
        built = { id, candidate, entry: router.key, sources: [router, ...stepFiles.sources], edgesOf: withRoutes, workflowText: candidate.text.raw };
      } else if (entry) {
        entry = earliestEntry(entry, stepPaths, edgesOf, named, reached);
        const order = reach(entry, edgesOf);
        for (const p of order) reached.add(p);
        const stepFiles = fileSources(id, dir, order, texts, issues);
        Object.assign(renamed, stepFiles.renamed);
        built = { id, candidate, entry, sources: stepFiles.sources, edgesOf, workflowText: candidate.text.raw };
      } else {
        const inline = inlineSources(id, candidate);
        if (!inline) {
          issues.push(errorIssue('BMAD_NO_STEPS', candidate.path, `Workflow "${candidate.name}" has no step files to import.`, { params: { name: candidate.name }, hint: 'Its step-*.md files belong beside it, e.g. in steps/.' }));
          continue;
        }
        if (inline.whole) {
          issues.push(
            warningIssue('BMAD_STEPS_INLINE', candidate.path, `${candidate.path} has no step files and no <step> blocks, so its whole text became one step (${inline.sources[0]!.nodeId}).`, {
              params: { path: candidate.path },
              hint: 'Split it into steps in the editor, or write <step n="…" goal="…"> blocks and import again.',
            }),
          );
        }
        built = {
          id,
          candidate,
          entry: inline.sources[0]!.key,
          sources: inline.sources,
          edgesOf: inline.edgesOf,
          endAfter: inline.endAfter,
          workflowText: withMarkers(candidate.text.raw, inline.workflowSteps),
        };
      }
      summaries.push(buildWorkflow(built, pkg, issues));
      origin.workflows.push({ id, dir, file: baseOf(candidate.path), ...(Object.keys(renamed).length > 0 ? { renamed } : {}) });
    }
    for (const path of stepPaths) {
      if (reached.has(path)) {
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
    const compiled = !used.has(path) && isCompiledAgentFile(path, content);
    if (!isAgentFile(path) && !compiled) continue;
    const { agent, issues: found } = compiled ? agentFromCompiledMd(path, content, agentIds) : agentFromYaml(path, content, agentIds);
    agents.push(agent);
    issues.push(...found);
    agentSummaries.push({ id: agent.id as string, name: (agent.metadata as { name: string }).name, source: path });
  }
  if (agents.length === 0) {
    const agent = placeholderAgent();
    agents.push(agent);
    agentSummaries.push({ id: agent.id as string, name: 'BMAD agent', source: null });
    issues.push(
      warningIssue('BMAD_AGENT_PLACEHOLDER', 'agents.json', 'The upload has no agent file (*.agent.yaml, or a compiled agent .md), so a placeholder agent was written.', {
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
    if (!(ASSET_EXTENSIONS as readonly string[]).includes(extension.toLowerCase())) {
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
